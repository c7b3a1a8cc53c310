import Foundation

/// The app's conversion schema as the server serves it, and how a rule is chosen for an event.
struct ConversionSchema: Sendable, Equatable {
    struct Rule: Sendable, Equatable {
        var type: String
        var name: String?
        var minAmount: Int64?
        var fine: Int?
        var coarse: CoarseValue?
        var lockWindow: Bool
    }

    var version: Int
    var rules: [Rule]
    /// Coarse rules for windows 2 and 3.
    var laterWindows: [Int: [Rule]]

    /// Reads the `conversions` object of `GET /v1/mobile/config`. Rules this SDK cannot read (a fine value outside
    /// 0–63, an unknown coarse value) are skipped.
    init?(json: [String: Any]) {
        guard let version = json["version"] as? Int, let rules = json["rules"] as? [[String: Any]] else { return nil }
        self.version = version
        self.rules = rules.compactMap { Self.rule($0, needsFine: true) }
        var windows: [Int: [Rule]] = [:]
        for window in json["laterWindows"] as? [[String: Any]] ?? [] {
            guard let number = window["window"] as? Int, let rules = window["rules"] as? [[String: Any]] else { continue }
            windows[number] = rules.compactMap { Self.rule($0, needsFine: false) }
        }
        laterWindows = windows
    }

    private static func rule(_ json: [String: Any], needsFine: Bool) -> Rule? {
        guard let type = json["type"] as? String else { return nil }
        let fine = json["fine"] as? Int
        if needsFine { guard let fine, (0...63).contains(fine) else { return nil } }
        var coarse: CoarseValue?
        if let text = json["coarse"] as? String {
            guard let value = CoarseValue(rawValue: text) else { return nil }
            coarse = value
        } else if !needsFine {
            return nil
        }
        let minAmount = (json["minAmount"] as? NSNumber)?.int64Value
        return Rule(type: type, name: json["name"] as? String, minAmount: minAmount, fine: fine, coarse: coarse,
                    lockWindow: json["lockWindow"] as? Bool ?? false)
    }

    /// A rule applies when its type is the event's, its name (if any) is the event's, and its minAmount is not above
    /// the amount. The highest minAmount wins; ties go to a named rule, then the higher fine value, then the earlier rule.
    static func choose(_ rules: [Rule], type: String, name: String?, amount: Int64?) -> Rule? {
        let applying = rules.enumerated().filter { _, rule in
            rule.type == type && (rule.name == nil || rule.name == name) && (rule.minAmount ?? 0) <= (amount ?? 0)
        }
        return applying.max { a, b in
            let (x, y) = (a.element, b.element)
            if (x.minAmount ?? 0) != (y.minAmount ?? 0) { return (x.minAmount ?? 0) < (y.minAmount ?? 0) }
            if (x.name != nil) != (y.name != nil) { return x.name == nil }
            if (x.fine ?? 0) != (y.fine ?? 0) { return (x.fine ?? 0) < (y.fine ?? 0) }
            return a.offset > b.offset
        }?.element
    }

    /// The SKAdNetwork window a moment falls in, counted from the first launch: days 0–2, 3–7, 8–35.
    static func window(firstLaunch: Date, now: Date) -> Int {
        let days = now.timeIntervalSince(firstLaunch) / 86_400
        return days < 2 ? 1 : days < 7 ? 2 : 3
    }
}
