import Foundation
import Synchronization

/// Counters and histograms rendered in the Prometheus text format. Label values must be bounded (route patterns,
/// status codes), never raw paths or ids.
public final class MetricsRegistry: Sendable {
    public static let latencyBuckets: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]

    private struct Family {
        let help: String
        let isHistogram: Bool
        let buckets: [Double]
        var counters: [String: Double] = [:]
        var histograms: [String: Histogram] = [:]
    }

    private struct Histogram {
        var counts: [UInt64]
        var sum = 0.0
        var count: UInt64 = 0
    }

    private let families = Mutex<[String: Family]>([:])

    public init() {}

    /// Declares a counter; incrementing an undeclared name is a programming error.
    public func declareCounter(_ name: String, help: String) {
        families.withLock { $0[name] = $0[name] ?? Family(help: help, isHistogram: false, buckets: []) }
    }

    /// Declares a histogram with upper bounds `buckets` (ascending).
    public func declareHistogram(_ name: String, help: String, buckets: [Double]) {
        families.withLock { $0[name] = $0[name] ?? Family(help: help, isHistogram: true, buckets: buckets) }
    }

    public func increment(_ name: String, labels: [(String, String)] = [], by amount: Double = 1) {
        let key = Self.labelText(labels)
        families.withLock { families in
            families[name]?.counters[key, default: 0] += amount
        }
    }

    public func observe(_ name: String, labels: [(String, String)] = [], _ value: Double) {
        let key = Self.labelText(labels)
        families.withLock { families in
            guard let buckets = families[name]?.buckets else { return }
            var histogram = families[name]!.histograms[key] ?? Histogram(counts: Array(repeating: 0, count: buckets.count))
            if let i = buckets.firstIndex(where: { value <= $0 }) { histogram.counts[i] += 1 }
            histogram.sum += value
            histogram.count += 1
            families[name]!.histograms[key] = histogram
        }
    }

    /// The current value of a counter (for tests and health checks).
    public func counterValue(_ name: String, labels: [(String, String)] = []) -> Double {
        families.withLock { $0[name]?.counters[Self.labelText(labels)] ?? 0 }
    }

    /// How many observations a histogram has.
    public func histogramCount(_ name: String, labels: [(String, String)] = []) -> UInt64 {
        families.withLock { $0[name]?.histograms[Self.labelText(labels)]?.count ?? 0 }
    }

    /// Everything, in the Prometheus text exposition format 0.0.4.
    public func render() -> String {
        let snapshot = families.withLock { $0 }
        var out = ""
        for name in snapshot.keys.sorted() {
            let family = snapshot[name]!
            out += "# HELP \(name) \(family.help)\n# TYPE \(name) \(family.isHistogram ? "histogram" : "counter")\n"
            if family.isHistogram {
                for key in family.histograms.keys.sorted() {
                    let h = family.histograms[key]!
                    var cumulative: UInt64 = 0
                    for (i, bound) in family.buckets.enumerated() {
                        cumulative += h.counts[i]
                        out += "\(name)_bucket\(Self.withLabel(key, "le", Self.number(bound))) \(cumulative)\n"
                    }
                    out += "\(name)_bucket\(Self.withLabel(key, "le", "+Inf")) \(h.count)\n"
                    out += "\(name)_sum\(Self.braced(key)) \(Self.number(h.sum))\n"
                    out += "\(name)_count\(Self.braced(key)) \(h.count)\n"
                }
            } else {
                for key in family.counters.keys.sorted() {
                    out += "\(name)\(Self.braced(key)) \(Self.number(family.counters[key]!))\n"
                }
            }
        }
        return out
    }

    static func labelText(_ labels: [(String, String)]) -> String {
        labels.map { "\($0.0)=\"\(escape($0.1))\"" }.joined(separator: ",")
    }

    static func escape(_ value: String) -> String {
        guard value.utf8.contains(where: { $0 == 0x5C || $0 == 0x22 || $0 == 0x0A }) else { return value }
        var out = ""
        for c in value.unicodeScalars {
            switch c {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    static func braced(_ key: String) -> String { key.isEmpty ? "" : "{\(key)}" }

    static func withLabel(_ key: String, _ name: String, _ value: String) -> String {
        key.isEmpty ? "{\(name)=\"\(value)\"}" : "{\(key),\(name)=\"\(value)\"}"
    }

    static func number(_ v: Double) -> String {
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        return String(v)
    }
}

/// Counts requests by route and status and records their latency.
public struct MetricsMiddleware: Middleware {
    let metrics: MetricsRegistry

    public init(metrics: MetricsRegistry) {
        self.metrics = metrics
        metrics.declareCounter("linkrunway_http_requests_total", help: "HTTP requests answered, by route and status.")
        metrics.declareHistogram("linkrunway_http_request_duration_seconds", help: "Time to answer a request, by route.",
                                 buckets: MetricsRegistry.latencyBuckets)
    }

    public func handle(_ request: HTTPRequest, context: RequestContext, next: Responder) async throws -> HTTPResponse {
        let response = try await next(request, context)
        record(context, response)
        return response
    }

    public func handleImmediately(_ request: HTTPRequest, context: RequestContext, next: ImmediateResponder) throws -> HTTPResponse? {
        guard var response = try next(request, context) else { return nil }
        if let release = response.release {
            response.release = release.map { [self] final in
                record(context, final)
                return final
            }
        } else {
            record(context, response)
        }
        return response
    }

    private func record(_ context: RequestContext, _ response: HTTPResponse) {
        let route = context.route?.label ?? "unmatched"
        let elapsed = context.startedAt.duration(to: .now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        metrics.increment("linkrunway_http_requests_total", labels: [("route", route), ("status", String(response.status))])
        metrics.observe("linkrunway_http_request_duration_seconds", labels: [("route", route)], seconds)
    }
}
