/// Checks the AdAttributionKit and SKAdNetwork keys of an Info.plist for the mistakes Apple's pages warn about:
/// ad network ids not in lower case, an endpoint that is not `https://` and one of the server's domains, windows and
/// cooldowns out of range or of the wrong type, an ignored interaction type where Apple does not read it (or both
/// ignored), and keys Apple does not define. Keys of other frameworks are left alone. Never throws.
/// https://developer.apple.com/documentation/adattributionkit/configuring-attribution-rules-for-your-app
/// https://developer.apple.com/documentation/adattributionkit/configuring-a-publisher-app
/// https://developer.apple.com/documentation/adattributionkit/configuring-an-advertised-app
public struct AttributionPlistCheck {
    public struct Finding: Sendable, Equatable {
        public enum Level: String, Sendable { case error, warning }
        public let level: Level
        /// Dot-separated key path.
        public let key: String
        public let message: String
    }

    typealias Keys = AttributionPlistKeys

    /// The hosts that reach this server over https (its verified link domains).
    let serverHosts: [String]
    private(set) var findings: [Finding] = []

    /// Checks `plist` (the document's bytes); errors first, then warnings, each in key order.
    public static func check(_ bytes: [UInt8], serverHosts: [String]) -> [Finding] {
        guard let plist = PropertyList.read(bytes) else {
            return [Finding(level: .error, key: "", message: "not an XML property list")]
        }
        return check(plist, serverHosts: serverHosts)
    }

    public static func check(_ plist: PropertyList, serverHosts: [String]) -> [Finding] {
        var checker = AttributionPlistCheck(serverHosts: serverHosts.map { $0.lowercased() })
        checker.checkTop(plist)
        // Errors first, then warnings, each in the order they were found.
        return checker.findings.enumerated().sorted { a, b in
            let (x, y) = (a.element.level == .error ? 0 : 1, b.element.level == .error ? 0 : 1)
            return x != y ? x < y : a.offset < b.offset
        }.map(\.element)
    }

    mutating func error(_ key: String, _ message: String) { findings.append(Finding(level: .error, key: key, message: message)) }
    mutating func warning(_ key: String, _ message: String) { findings.append(Finding(level: .warning, key: key, message: message)) }

    mutating func checkTop(_ plist: PropertyList) {
        guard case .dictionary(let entries) = plist else { return error("", "the property list is a \(plist.typeName), not a dictionary") }
        for (key, value) in entries {
            switch key {
            case Keys.adAttributionKit: checkAdAttributionKit(value)
            case Keys.configurations: checkConfigurations(value)
            case Keys.adNetworkIdentifiers: checkAdNetworkIdentifiers(value)
            case Keys.skAdNetworkItems: checkSKAdNetworkItems(value)
            case Keys.skAdNetworkReportEndpoint: checkEndpoint(value, key: key, wellKnown: "skadnetwork")
            case Keys.reengagementPostbackCopies, Keys.overlappingConversions:
                warning(key, "goes inside the \(Keys.adAttributionKit) dictionary, where Xcode's editor puts it")
            default:
                if Keys.looksLikeAttributionKey(key) { unknown(key, among: Keys.topLevel) }
            }
        }
    }

    mutating func unknown(_ path: String, among known: [String]) {
        let name = path.split(separator: ".").last.map(String.init) ?? path
        let letters = { (key: String) in Array(key.lowercased().filter(\.isLetter)) }
        let close = Keys.misnamed[name] ?? known.first { Self.distance(letters($0), letters(name)) <= 2 }
        error(path, "Apple defines no key \(name) here" + (close.map { "; did you mean \($0)?" } ?? ""))
    }

    /// Edits (insertions, deletions, substitutions) between two spellings.
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() { current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1))) }
            previous = current
        }
        return previous[b.count]
    }

    /// The dictionary at `path`, reporting any other type.
    mutating func dictionary(_ value: PropertyList, _ path: String) -> [(key: String, value: PropertyList)]? {
        guard case .dictionary(let entries) = value else {
            error(path, "must be a Dictionary, not a \(value.typeName)")
            return nil
        }
        return entries
    }

    mutating func checkAdAttributionKit(_ value: PropertyList) {
        let path = Keys.adAttributionKit
        guard let entries = dictionary(value, path) else { return }
        for (key, value) in entries {
            switch key {
            case Keys.attributionCopyEndpoint: checkEndpoint(value, key: "\(path).\(key)", wellKnown: "appattribution")
            case Keys.reengagementPostbackCopies, Keys.overlappingConversions:
                if case .boolean = value { continue }
                error("\(path).\(key)", "must be a Boolean (YES), not a \(value.typeName)")
            default: unknown("\(path).\(key)", among: Keys.defined[Keys.adAttributionKit] ?? [])
            }
        }
    }

    /// An endpoint is `https://` and a host of this server, with nothing after it: Apple keeps only the registrable
    /// domain and adds its own well-known path.
    mutating func checkEndpoint(_ value: PropertyList, key: String, wellKnown: String) {
        guard case .string(let text) = value else { return error(key, "must be a String, not a \(value.typeName)") }
        guard text.lowercased().hasPrefix("https://") else { return error(key, "must start with https://; Apple posts over HTTPS only") }
        let rest = text.dropFirst("https://".count)
        let host = String(rest.prefix { $0 != "/" && $0 != ":" && $0 != "?" && $0 != "#" }).lowercased()
        guard !host.isEmpty else { return error(key, "names no domain") }
        let tail = rest.dropFirst(host.count)
        if !tail.isEmpty && tail != "/" {
            warning(key, "Apple keeps only the domain: it posts to https://\(Keys.registrableDomain(host))/.well-known/\(wellKnown)/report-attribution/ whatever follows it")
        }
        let registrable = Keys.registrableDomain(host)
        if serverHosts.contains(registrable) { return }
        if serverHosts.contains(host) {
            return warning(key, "Apple ignores subdomains: copies go to \(registrable), not \(host); that domain must pass /.well-known/\(wellKnown)/ to this server")
        }
        let ours = serverHosts.isEmpty ? "this workspace has no verified link domain" : "this server's domains are \(serverHosts.joined(separator: ", "))"
        error(key, "\(host) is not one of this server's https domains (\(ours))")
    }

    mutating func checkConfigurations(_ value: PropertyList) {
        let path = Keys.configurations
        guard let entries = dictionary(value, path) else { return }
        for (key, value) in entries {
            switch key {
            case Keys.attributionWindows: checkWindows(value, "\(path).\(key)")
            case Keys.attributionCooldown: checkCooldown(value, "\(path).\(key)")
            default: unknown("\(path).\(key)", among: Keys.defined[Keys.configurations] ?? [])
            }
        }
    }

    mutating func checkWindows(_ value: PropertyList, _ path: String) {
        guard let networks = dictionary(value, path) else { return }
        for (network, value) in networks {
            let networkPath = "\(path).\(network)"
            let isGlobal = network == Keys.global
            if !isGlobal { checkLowerCase(network, at: networkPath) }
            guard let kinds = dictionary(value, networkPath) else { continue }
            for (kind, value) in kinds {
                guard kind == Keys.install else {
                    unknown("\(networkPath).\(kind)", among: [Keys.install])
                    continue
                }
                checkInstallWindow(value, "\(networkPath).\(kind)", isGlobal: isGlobal)
            }
        }
    }

    mutating func checkInstallWindow(_ value: PropertyList, _ path: String, isGlobal: Bool) {
        guard let entries = dictionary(value, path) else { return }
        var ignored: [String] = []
        for (key, value) in entries {
            switch key {
            case Keys.click: checkInteger(value, "\(path).\(key)", range: Keys.clickDays, unit: "days")
            case Keys.view: checkInteger(value, "\(path).\(key)", range: Keys.viewDays, unit: "days")
            case Keys.ignoreInteractionType: ignored = checkIgnored(value, "\(path).\(key)", isGlobal: isGlobal)
            default: unknown("\(path).\(key)", among: Keys.defined[Keys.install] ?? [])
            }
        }
        for kind in ignored where entries.contains(where: { $0.key == kind }) {
            warning("\(path).\(kind)", "this network's \(kind) impressions are ignored, so their window has no effect")
        }
        if entries.isEmpty { warning(path, "is empty: Apple's defaults apply") }
    }

    /// The interaction types an `ignoreInteractionType` names, reporting what Apple does not take.
    mutating func checkIgnored(_ value: PropertyList, _ path: String, isGlobal: Bool) -> [String] {
        var kinds: [String]
        switch value {
        case .string(let text): kinds = [text]
        case .array(let items): kinds = items.map { if case .string(let s) = $0 { s } else { $0.typeName } }
        default:
            error(path, "must be a String (click or view), not a \(value.typeName)")
            return []
        }
        if case .array = value { error(path, "must be one String, click or view, not an Array") }
        kinds = kinds.flatMap { $0.split(whereSeparator: { !$0.isLetter }).map { String($0) } }
        if Set(Keys.interactionTypes).isSubset(of: Set(kinds)) || kinds.contains("both") {
            error(path, "ignores both interaction types, so no impression of this network could ever win")
        } else if let bad = kinds.first(where: { !Keys.interactionTypes.contains($0) }) {
            error(path, "\(bad) is not an interaction type; Apple takes click or view")
        }
        if isGlobal { error(path, "Apple reads ignoreInteractionType only for an ad network, never in global") }
        return kinds.filter(Keys.interactionTypes.contains)
    }

    mutating func checkCooldown(_ value: PropertyList, _ path: String) {
        guard let entries = dictionary(value, path) else { return }
        for (key, value) in entries {
            switch key {
            case Keys.installCooldownHours, Keys.reengagementCooldownHours:
                checkInteger(value, "\(path).\(key)", range: Keys.cooldownHours, unit: "hours")
            default: unknown("\(path).\(key)", among: Keys.defined[Keys.attributionCooldown] ?? [])
            }
        }
    }

    mutating func checkInteger(_ value: PropertyList, _ path: String, range: ClosedRange<Int64>, unit: String) {
        guard case .integer(let n) = value else {
            return error(path, "must be a Number (whole \(unit), \(range.lowerBound)–\(range.upperBound)), not a \(value.typeName)")
        }
        if !range.contains(n) { error(path, "\(n) \(unit) is outside Apple's range, \(range.lowerBound)–\(range.upperBound)") }
    }

    mutating func checkLowerCase(_ id: String, at path: String) {
        if id != id.lowercased() {
            error(path, "\(id) has upper-case letters; Apple matches ad network ids in lower case only (\(id.lowercased()))")
        }
    }

    mutating func checkAdNetworkIdentifiers(_ value: PropertyList) {
        let path = Keys.adNetworkIdentifiers
        guard case .array(let items) = value else { return error(path, "must be an Array of Strings, not a \(value.typeName)") }
        var seen: Set<String> = []
        for (index, item) in items.enumerated() {
            guard case .string(let id) = item else {
                error("\(path).\(index)", "must be a String, not a \(item.typeName)")
                continue
            }
            checkLowerCase(id, at: "\(path).\(index)")
            if !seen.insert(id.lowercased()).inserted { warning("\(path).\(index)", "\(id) is listed twice") }
        }
    }

    mutating func checkSKAdNetworkItems(_ value: PropertyList) {
        let path = Keys.skAdNetworkItems
        guard case .array(let items) = value else { return error(path, "must be an Array of Dictionaries, not a \(value.typeName)") }
        for (index, item) in items.enumerated() {
            guard let entries = dictionary(item, "\(path).\(index)") else { continue }
            for (key, value) in entries {
                let itemPath = "\(path).\(index).\(key)"
                guard key == Keys.skAdNetworkIdentifier else {
                    unknown(itemPath, among: [Keys.skAdNetworkIdentifier])
                    continue
                }
                guard case .string(let id) = value else {
                    error(itemPath, "must be a String, not a \(value.typeName)")
                    continue
                }
                checkLowerCase(id, at: itemPath)
            }
            if !entries.contains(where: { $0.key == Keys.skAdNetworkIdentifier }) {
                error("\(path).\(index)", "has no \(Keys.skAdNetworkIdentifier)")
            }
        }
    }
}
