import Foundation

extension LinkRunway {
    /// Fetches the app's conversion schema (`GET /v1/mobile/config/<appId>`), at most once a day; a schema from an
    /// earlier day keeps working while a refresh fails, and after a failure events wait five minutes before trying
    /// again. Without consent the app id is remembered and used once consent is given.
    @discardableResult
    public func configureConversions(appId: String) async throws -> Int? {
        pendingConversionsAppId = appId
        guard try gate() != nil else { return nil }
        return try await refreshSchema(appId: appId)?.version
    }

    func refreshSchema(appId: String) async throws -> ConversionSchema? {
        let now = environment.now()
        let today = Self.day(now)
        let stored = storedSchema
        if stored != nil, storage.string(.schemaFetchedDay) == today { return stored }
        if let failed = storage.double(.schemaFailedAt), now.timeIntervalSince1970 - failed < 300 { return stored }
        let started = epoch
        do {
            let answer = try await transport.send("GET", "/v1/mobile/config/\(appId)")
            guard started == epoch else { return nil }
            let json = try Transport.object(answer)
            storage.set(today, .schemaFetchedDay)
            storage.set(nil as Double?, .schemaFailedAt)
            guard let conversions = json["conversions"] as? [String: Any], let schema = ConversionSchema(json: conversions),
                  let data = try? JSONSerialization.data(withJSONObject: conversions) else {
                storage.set(nil as String?, .schema)
                return nil
            }
            storage.set(String(decoding: data, as: UTF8.self), .schema)
            return schema
        } catch {
            storage.set(now.timeIntervalSince1970, .schemaFailedAt)
            if let stored { return stored }
            throw error
        }
    }

    var storedSchema: ConversionSchema? {
        storage.string(.schema).flatMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }.flatMap(ConversionSchema.init(json:))
    }

    static func day(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return "\(parts.year ?? 0)-\(parts.month ?? 0)-\(parts.day ?? 0)"
    }

    /// Updates Apple's conversion value for something LinkRunway learns elsewhere (a purchase your backend reports),
    /// by the app's rules; `amount` in minor units. Sends nothing to LinkRunway. Returns once its own update has been
    /// handed to Apple (nil when no rule applies, the value would be lower than one already sent, or there is no
    /// consent).
    @discardableResult
    public func recordConversion(event: String, name: String? = nil, amount: Int64? = nil) async -> ConversionUpdate? {
        guard consented else { return nil }
        return await enqueueConversion(type: event, name: name, amount: amount)?.value ?? nil
    }

    /// Queues the update an event calls for behind the ones already queued; updates reach Apple one at a time, in
    /// order. The rule is chosen when its turn comes, after fetching the schema again if a fetch is due (a day after
    /// the last, or five minutes after one failed), so an offline first launch sets values once the network is back.
    func enqueueConversion(type: String, name: String?, amount: Int64?) -> Task<ConversionUpdate?, Never>? {
        guard consented, !environment.conversionFrameworks.isEmpty else { return nil }
        let at = environment.now()
        let previous = conversionQueue
        let started = epoch
        let task = Task { () -> ConversionUpdate? in
            await previous?.value
            guard !Task.isCancelled else { return nil }
            return await self.apply(type: type, name: name, amount: amount, at: at, epoch: started)
        }
        conversionQueue = Task { _ = await task.value }
        return task
    }

    /// Registers the installation for postbacks with the lowest value (fine 0, coarse low), once: Apple asks for a
    /// conversion update at the first launch (SKAdNetwork at once, AdAttributionKit within 60 days), and without one no
    /// postback exists however the rules run. Each framework gets its own call for the OS version, as for any update.
    /// Consent gates it like every other call; it is queued first, so no later rule's update is lowered by it.
    func registerPostback() {
        guard consented, !storage.bool(.postbackRegistered), storage.int(.highestFine) == nil, !environment.conversionFrameworks.isEmpty else { return }
        let previous = conversionQueue
        let started = epoch
        conversionQueue = Task {
            await previous?.value
            guard !Task.isCancelled, started == epoch, consented, storage.int(.highestFine) == nil else { return }
            let lowest = Values(fine: 0, coarse: .low, lock: false)
            var accepted = false
            for framework in environment.conversionFrameworks where await hand(lowest, to: framework, tag: nil) { accepted = true }
            guard started == epoch, accepted else { return }
            storage.set(true, .postbackRegistered)
            if storage.int(.highestFine) == nil { storage.set(0, .highestFine) }
        }
    }

    /// The values a rule gives, ready for a framework.
    struct Values: Equatable {
        var fine: Int
        var coarse: CoarseValue?
        var lock: Bool
    }

    func apply(type: String, name: String?, amount: Int64?, at: Date, epoch started: Int) async -> ConversionUpdate? {
        guard started == epoch, consented else { return nil }
        if let appId = pendingConversionsAppId { _ = try? await refreshSchema(appId: appId) }
        guard started == epoch, consented, let schema = storedSchema else { return nil }
        let firstLaunch = storage.double(.firstLaunchAt).map { Date(timeIntervalSince1970: $0) } ?? at
        let window = ConversionSchema.window(firstLaunch: firstLaunch, now: at)
        let chosen = ConversionSchema.choose(schema.rules, type: type, name: name, amount: amount)
        let later = window > 1 ? schema.laterWindows[window].flatMap { ConversionSchema.choose($0, type: type, name: name, amount: amount) } : nil
        // After the install's third window (35 days from the first launch) Apple takes no more install updates: none is
        // made, so none is reported as accepted.
        let installOpen = at.timeIntervalSince(firstLaunch) < Self.lastWindowDays * 86_400
        let install = installOpen ? Self.installValues(chosen: chosen, later: later, highest: storage.int(.highestFine) ?? -1) : nil
        // A re-engagement's own postback, through Apple's three windows counted from its open (days 0–2, 3–7,
        // 8–35), takes the rules as the install's does from the first launch, under a high-water mark of its own.
        let taggedAt = storage.double(.conversionTagAt).map { Date(timeIntervalSince1970: $0) } ?? .distantPast
        let tag = at.timeIntervalSince(taggedAt) < Self.lastWindowDays * 86_400 ? storage.string(.conversionTag) : nil
        var reengagement: Values?
        if tag != nil {
            let reengagementWindow = ConversionSchema.window(firstLaunch: taggedAt, now: at)
            let laterForIt = reengagementWindow > 1
                ? schema.laterWindows[reengagementWindow].flatMap { ConversionSchema.choose($0, type: type, name: name, amount: amount) } : nil
            reengagement = Self.installValues(chosen: chosen, later: laterForIt, highest: storage.int(.reengagementHighestFine) ?? -1)
        }
        guard install != nil || reengagement != nil else { return nil }

        var installAccepted: [String] = []
        if let install {
            // SKAdNetwork mirrors its updates into AdAttributionKit with only the fine value and the lock, so the
            // complete AdAttributionKit call goes last, unless the window locks: then it goes first, to lock with its
            // coarse value.
            var order = environment.conversionFrameworks
            if install.lock { order = order.filter { $0.name == "adattributionkit" } + order.filter { $0.name != "adattributionkit" } }
            for framework in order where await hand(install, to: framework, tag: nil) { installAccepted.append(framework.name) }
        }
        var reengagementUpdate: ReengagementUpdate?
        if let tag, let values = reengagement {
            var accepted: [String] = []
            for framework in environment.conversionFrameworks where framework.takesReengagementUpdates {
                if await hand(values, to: framework, tag: tag) { accepted.append(framework.name) }
            }
            reengagementUpdate = ReengagementUpdate(conversionTag: tag, fine: values.fine, coarse: values.coarse, lockWindow: values.lock, frameworks: accepted)
        }
        guard started == epoch else { return nil }
        if let install, install.fine > storage.int(.highestFine) ?? -1 { storage.set(install.fine, .highestFine) }
        if let values = reengagement, values.fine > storage.int(.reengagementHighestFine) ?? -1 { storage.set(values.fine, .reengagementHighestFine) }
        let shown = install ?? reengagement!
        return ConversionUpdate(fine: shown.fine, coarse: shown.coarse, lockWindow: shown.lock, frameworks: installAccepted, reengagement: reengagementUpdate)
    }

    /// The end of Apple's third conversion window, in days from the first launch (install postbacks) or from the open
    /// (a re-engagement's).
    static let lastWindowDays: Double = 35

    /// Never lower: a rule below the highest fine value already handed over is dropped (an equal one is sent again).
    /// In windows 2 and 3 the window's own rule decides the coarse value and the fine value stays.
    static func installValues(chosen: ConversionSchema.Rule?, later: ConversionSchema.Rule?, highest: Int) -> Values? {
        if let later { return Values(fine: max(highest, chosen?.fine ?? 0), coarse: later.coarse, lock: later.lockWindow) }
        if let chosen, let fine = chosen.fine, fine >= highest { return Values(fine: fine, coarse: chosen.coarse, lock: chosen.lockWindow) }
        return nil
    }

    /// Whether the framework took the update within `appleCallTimeout`; one that never answers is left behind, so the
    /// queue goes on to the next update.
    func hand(_ values: Values, to framework: any ConversionFramework, tag: String?) async -> Bool {
        let outcome = await AppleCall.awaiting(within: environment.appleCallTimeout) {
            try await framework.update(fine: values.fine, coarse: values.coarse, lockWindow: values.lock, conversionTag: tag)
        }
        if case .success? = outcome { return true }
        return false
    }
}
