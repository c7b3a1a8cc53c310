import Foundation
import RunwayCapabilities
import RunwayHTTP
import RunwayKit

/// Dates in the viewer's time zone (from the `lr_tz` cookie the console's script sets; UTC until then), numbers and
/// money in the viewer's language (from Accept-Language).
struct ConsoleFormat: Sendable {
    let timeZone: TimeZone
    let locale: Locale

    init(request: HTTPRequestLike) {
        let zone = request.cookie("lr_tz").flatMap { TimeZone(identifier: $0) }
        timeZone = zone ?? .gmt
        let language = request.header("Accept-Language")?.split(separator: ",").first?
            .split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) }
        locale = Locale(identifier: (language.flatMap { $0.isEmpty ? nil : $0 } ?? "en-US").replacingOccurrences(of: "-", with: "_"))
    }

    var zoneName: String { timeZone.identifier }

    /// `30 Nov 2026, 09:14` in the viewer's zone, from an ISO 8601 time.
    func time(_ iso: String?) -> String {
        guard let iso, let milliseconds = ISOTime.milliseconds(iso) else { return iso ?? "" }
        let formatter = DateFormatter()
        formatter.locale = locale
        formatter.timeZone = timeZone
        formatter.dateStyle = .medium
        formatter.timeStyle = .short
        return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }

    func number<N: BinaryInteger>(_ value: N) -> String {
        let formatter = NumberFormatter()
        formatter.locale = locale
        formatter.numberStyle = .decimal
        return formatter.string(from: NSNumber(value: Int64(value))) ?? String(value)
    }

    /// An amount in minor units of `currency` (ISO 4217), as the viewer writes money; `whole` leaves out the fraction
    /// (for a chart's axis, whose ticks are whole units).
    func money(_ minor: Int64, _ currency: String, whole: Bool = false) -> String {
        let formatter = NumberFormatter()
        formatter.locale = locale
        formatter.numberStyle = .currency
        formatter.currencyCode = currency
        let digits = formatter.maximumFractionDigits
        var scaled = Decimal(minor)
        for _ in 0..<digits { scaled /= 10 }
        if whole { (formatter.minimumFractionDigits, formatter.maximumFractionDigits) = (0, 0) }
        return formatter.string(from: scaled as NSDecimalNumber) ?? "\(minor) \(currency)"
    }

    /// Minor units in one unit of `currency` (100 for USD, 1 for JPY).
    static func minorUnits(_ currency: String) -> Int64 {
        let formatter = NumberFormatter()
        formatter.numberStyle = .currency
        formatter.currencyCode = currency
        return (0..<formatter.maximumFractionDigits).reduce(Int64(1)) { value, _ in value * 10 }
    }

    /// A UTC day (`2026-03-01`) short, as the viewer writes dates: `1 Mar`, or `1 Mar 2026` with `year`.
    func day(_ iso: String, year: Bool = false) -> String {
        guard let milliseconds = ISOTime.dayStart(iso) else { return iso }
        let formatter = DateFormatter()
        formatter.locale = locale
        formatter.timeZone = .gmt
        formatter.setLocalizedDateFormatFromTemplate(year ? "d MMM yyyy" : "d MMM")
        return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }
}

/// What the formatter needs of a request (a protocol so it can be tested without one).
protocol HTTPRequestLike {
    func header(_ name: String) -> String?
    func cookie(_ name: String) -> String?
}

extension RunwayHTTP.HTTPRequest: HTTPRequestLike {
    func header(_ name: String) -> String? { headers[name] }

    /// The value of cookie `name`, percent-decoded.
    func cookie(_ name: String) -> String? {
        for field in headers where field.name.lowercased() == "cookie" {
            for pair in field.value.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if parts.count == 2, parts[0] == name { return parts[1].removingPercentEncoding ?? parts[1] }
            }
        }
        return nil
    }
}
