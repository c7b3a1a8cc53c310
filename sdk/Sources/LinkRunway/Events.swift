import Foundation

/// An event kept on the device until the server acknowledges it, so a retry (in this launch or a later one) carries
/// the same id and timestamp and is recognised as the same event.
struct PendingEvent: Codable, Sendable, Equatable {
    var eventId: String
    var type: String
    var name: String?
    var userId: String?
    var timestamp: String
    var clickToken: String?
    /// A delivery failed in a way that may still have reached the server (a timeout, a lost connection).
    var mayHaveArrived = false
}

extension LinkRunway {
    static let revenueTypes: Set<String> = ["PURCHASE", "SUBSCRIPTION", "REFUND"]
    /// Events kept for a later delivery at most; beyond, the oldest (never the INSTALL event) are dropped.
    static let outboxLimit = 500

    /// Records an event (SIGNUP, LOGIN, OPEN, CUSTOM with a name, …) and then updates Apple's conversion value by the
    /// app's rules, without waiting for that. Revenue events are refused: send them from your backend. Nil without
    /// consent.
    ///
    /// - Parameters:
    ///   - eventId: your own id for the event (1 to 128 characters); the SDK makes a random one otherwise. Sent again
    ///     with the same id, the event is stored once (the receipt then says `duplicate`).
    ///   - timestamp: when it happened (now by default).
    ///
    /// An event that cannot be delivered (no network, 429, 5xx) throws, and is also kept on the device with its id and
    /// timestamp: the SDK sends it again before the next event, in this launch or a later one, or on
    /// `sendPendingEvents()`. Do not send it again yourself unless you passed your own `eventId`.
    @discardableResult
    public func track(type: String, name: String? = nil, userId: String? = nil, eventId: String? = nil, timestamp: Date? = nil) async throws -> EventReceipt? {
        guard !Self.revenueTypes.contains(type) else {
            throw LinkRunwayError.revenueNeedsServerKey("\(type) events carry money: send them from your backend with a server key")
        }
        guard try gate() != nil else { return nil }
        if let eventId, !(1...128).contains(eventId.utf8.count) {
            throw LinkRunwayError.invalidArgument("eventId must be 1 to 128 characters")
        }
        return try await deliver(queue(type: type, name: name, userId: userId, eventId: eventId, timestamp: timestamp))
    }

    /// The INSTALL event, once per installation (also after consent is given again). Called again while the first
    /// attempt waits for a delivery, it sends that same event again.
    public func install() async throws {
        guard try gate() != nil else { return }
        if let pending = outbox.first(where: { $0.type == "INSTALL" }) {
            _ = try await deliver(pending.eventId)
            return
        }
        guard !storage.bool(.installReported) else { return }
        // Marked before the first await, so a concurrent call finds the queued event instead of making another.
        storage.set(true, .installReported)
        _ = try await deliver(queue(type: "INSTALL", name: nil, userId: nil, eventId: nil, timestamp: nil))
    }

    /// Sends the events kept from failed deliveries, oldest first; stops at the first that still cannot be delivered.
    /// Returns how many are still kept.
    @discardableResult
    public func sendPendingEvents() async -> Int {
        guard consented else { return 0 }
        await runDelivery()
        return outbox.count
    }

    // MARK: The outbox

    var outbox: [PendingEvent] {
        get { storage.string(.outbox).flatMap { try? JSONDecoder().decode([PendingEvent].self, from: Data($0.utf8)) } ?? [] }
        set { storage.set(newValue.isEmpty ? nil : (try? JSONEncoder().encode(newValue)).map { String(decoding: $0, as: UTF8.self) }, .outbox) }
    }

    /// Keeps the event on the device before anything is sent; returns its id.
    func queue(type: String, name: String?, userId: String?, eventId: String?, timestamp: Date?) -> String {
        let id = eventId ?? UUID().uuidString.lowercased()
        var events = outbox
        if !events.contains(where: { $0.eventId == id }) {
            events.append(PendingEvent(eventId: id, type: type, name: name, userId: userId, timestamp: Self.iso(timestamp ?? environment.now()),
                                       clickToken: storage.string(.clickToken)))
            while events.count > Self.outboxLimit, let oldest = events.firstIndex(where: { $0.type != "INSTALL" }) { events.remove(at: oldest) }
            outbox = events
        }
        return id
    }

    /// Waits until a delivery has decided about this event: its receipt, or the error that kept it (or an earlier one)
    /// on the device.
    func deliver(_ eventId: String) async throws -> EventReceipt? {
        let started = epoch
        awaitedEvents.insert(eventId)
        defer { awaitedEvents.remove(eventId) }
        while started == epoch {
            if let outcome = deliveryOutcomes.removeValue(forKey: eventId) { return try outcome.get() }
            guard outbox.contains(where: { $0.eventId == eventId }) else { return nil }
            await runDelivery()
        }
        return nil
    }

    /// Joins the delivery running now, or starts one: one at a time, so events reach the server in order.
    func runDelivery() async {
        if let running = deliveryTask { return await running.value }
        let started = epoch
        let task = Task {
            await self.deliverQueued(epoch: started)
            // Cleared by the task itself before it ends: a caller that finds it finished never finds it set, so
            // `deliver` never loops on a delivery that is over.
            self.deliveryEnded(epoch: started)
        }
        deliveryTask = task
        await task.value
    }

    func deliveryEnded(epoch started: Int) {
        if started == epoch { deliveryTask = nil }
    }

    /// Sends what the outbox held when it started. An event the server acknowledges (stored or duplicate) or refuses
    /// (a 4xx other than 429) leaves it; a transient failure stops the delivery and is the outcome of every event left.
    func deliverQueued(epoch started: Int) async {
        guard !outbox.isEmpty else { return }
        do {
            try await registerReturningInstall()
        } catch {
            // Every event stays for a later delivery: sent now, each would be refused as of an unknown install.
            if started == epoch { fail(outbox, error) }
            return
        }
        for event in outbox {
            guard started == epoch, let installId = storage.string(.installId) else { return }
            var body: [String: Any] = ["eventId": event.eventId, "type": event.type, "installId": installId, "timestamp": event.timestamp]
            if let name = event.name { body["name"] = name }
            if let userId = event.userId { body["userId"] = userId }
            if let click = event.clickToken { body["clickToken"] = click }
            if let attestation = await currentAttestation() { body["attestation"] = attestation }
            guard started == epoch else { return }
            sending = event.eventId
            defer { if started == epoch { sending = nil } }
            do {
                let answer = try await transport.send("POST", "/v1/events", body: try Transport.json(body))
                guard started == epoch else { return }
                let status = (try? Transport.object(answer))?["status"] as? String ?? "stored"
                settle(event, .success(EventReceipt(eventId: event.eventId, status: status)))
                _ = enqueueConversion(type: event.type, name: event.name, amount: nil)
            } catch LinkRunwayError.server(status: 409, let body) where event.type == "INSTALL" && body.contains("duplicate_install") {
                // The server holds this installation's INSTALL event already.
                guard started == epoch else { return }
                settle(event, .success(EventReceipt(eventId: event.eventId, status: "duplicate")))
            } catch where Transport.isTransient(error) {
                guard started == epoch else { return }
                var events = outbox
                if !Transport.changedNothing(error), let index = events.firstIndex(where: { $0.eventId == event.eventId }) {
                    events[index].mayHaveArrived = true
                }
                outbox = events
                fail(events, error)
                return
            } catch {
                guard started == epoch else { return }
                settle(event, .failure(error))
            }
        }
    }

    /// Hands the error that stopped a delivery to whoever waits for one of these events, which stay in the outbox.
    func fail(_ events: [PendingEvent], _ error: any Error) {
        for event in events where awaitedEvents.contains(event.eventId) { deliveryOutcomes[event.eventId] = .failure(error) }
    }

    /// Removes a decided event from the outbox and hands its outcome to whoever waits for it.
    func settle(_ event: PendingEvent, _ outcome: Result<EventReceipt?, any Error>) {
        outbox = outbox.filter { $0.eventId != event.eventId }
        if awaitedEvents.contains(event.eventId) { deliveryOutcomes[event.eventId] = outcome }
    }
}
