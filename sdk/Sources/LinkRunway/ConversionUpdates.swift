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
    /// order.
    func enqueueConversion(type: String, name: String?, amount: Int64?) -> Task<ConversionUpdate?, Never>? {
        guard consented, let schema = storedSchema, !environment.conversionFrameworks.isEmpty else { return nil }
        let firstLaunch = storage.double(.firstLaunchAt).map { Date(timeIntervalSince1970: $0) } ?? environment.now()
        let window = ConversionSchema.window(firstLaunch: firstLaunch, now: environment.now())
        let chosen = ConversionSchema.choose(schema.rules, type: type, name: name, amount: amount)
        let later = window > 1 ? schema.laterWindows[window].flatMap { ConversionSchema.choose($0, type: type, name: name, amount: amount) } : nil
        guard chosen != nil || later != nil else { return nil }
        let previous = conversionQueue
        let started = epoch
        let task = Task { () -> ConversionUpdate? in
            await previous?.value
            guard !Task.isCancelled else { return nil }
            return await self.apply(chosen: chosen, later: later, epoch: started)
        }
        conversionQueue = Task { _ = await task.value }
        return task
    }

    /// Never lower: a rule below the highest fine value already handed over is dropped (an equal one is sent again).
    func apply(chosen: ConversionSchema.Rule?, later: ConversionSchema.Rule?, epoch started: Int) async -> ConversionUpdate? {
        guard started == epoch, consented else { return nil }
        let highest = storage.int(.highestFine) ?? -1
        let fine: Int
        let coarse: CoarseValue?
        let lock: Bool
        if let later {
            // Windows 2 and 3 use only the coarse value: the window's own rule decides it, the fine value stays.
            fine = max(highest, chosen?.fine ?? 0)
            coarse = later.coarse
            lock = later.lockWindow
        } else if let chosen, let value = chosen.fine, value >= highest {
            fine = value
            coarse = chosen.coarse
            lock = chosen.lockWindow
        } else {
            return nil
        }
        // SKAdNetwork mirrors its updates into AdAttributionKit with only the fine value and the lock, so the complete
        // AdAttributionKit call goes last, unless the window locks: then it goes first, to lock with its coarse value.
        var order = environment.conversionFrameworks
        if lock { order = order.filter { $0.name == "adattributionkit" } + order.filter { $0.name != "adattributionkit" } }
        // A re-engagement's tag applies for two days after the open that carried it.
        let taggedAt = storage.double(.conversionTagAt) ?? 0
        let tag = environment.now().timeIntervalSince1970 - taggedAt < 2 * 86_400 ? storage.string(.conversionTag) : nil
        var accepted: [String] = []
        for framework in order {
            do {
                try await framework.update(fine: fine, coarse: coarse, lockWindow: lock, conversionTag: tag)
                accepted.append(framework.name)
            } catch {}
        }
        guard started == epoch else { return nil }
        if fine > highest { storage.set(fine, .highestFine) }
        return ConversionUpdate(fine: fine, coarse: coarse, lockWindow: lock, frameworks: accepted)
    }
}
