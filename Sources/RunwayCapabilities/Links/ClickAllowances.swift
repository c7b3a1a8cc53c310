import RunwayKit
import RunwayStore
import Synchronization

/// The click limits of links, held under concurrency without a store round trip per click. Each process reserves
/// clicks of a capped link from the store in blocks (`link_click_allowances.reserved`, raised in one write under the
/// row's lock, so every process and writer sees the others' reservations) and spends them from memory on
/// libmicrohttpd's thread. A click is stored only with a reserved place, so the stored clicks never pass the limit;
/// what a process reserved and did not use (it stopped, or its write failed) is not used by another, so a link may
/// stop a few clicks short, never over. Blocks shrink as the limit nears (a sixteenth of what is left, at most 1,000),
/// so the last clicks are reserved one by one.
final class ClickAllowances: Sendable {
    enum Take: Equatable {
        /// A place was taken: the click may be stored.
        case granted
        /// Every place is reserved (by this process or others): the limit is reached.
        case exhausted
        /// This process holds no place: reserve more first (`reserve`), which takes a write.
        case unknown
    }

    private struct Allowance {
        /// The limit the places were reserved under; another limit starts again.
        let limit: Int64
        var remaining: Int64
        var exhausted: Bool
    }

    private let store: any Store
    private let allowances = Mutex<[String: Allowance]>([:])
    private let reserving = Mutex<[String: Task<Void, any Error>]>([:])
    static let largestBlock: Int64 = 1000

    init(store: any Store) { self.store = store }

    /// Takes one place for a click of `link`; a link without a limit always has one.
    func take(_ link: LinkRecord) -> Take {
        guard let limit = link.clickLimit else { return .granted }
        return allowances.withLock { all in
            guard var allowance = all[link.id], allowance.limit == limit else { return .unknown }
            guard allowance.remaining > 0 else { return allowance.exhausted ? .exhausted : .unknown }
            allowance.remaining -= 1
            all[link.id] = allowance
            return .granted
        }
    }

    /// What a click would get, taking nothing (HEAD and prefetches ask): `.unknown` when this process holds no place
    /// and has not seen the limit reached, which `learn` finds out with a read.
    func peek(_ link: LinkRecord) -> Take {
        guard let limit = link.clickLimit else { return .granted }
        return allowances.withLock { all in
            guard let allowance = all[link.id], allowance.limit == limit else { return .unknown }
            return allowance.remaining > 0 ? .granted : allowance.exhausted ? .exhausted : .unknown
        }
    }

    /// Reads whether every place of the link is reserved, and remembers it when so; whether the limit is reached.
    func learn(_ link: LinkRecord) async throws -> Bool {
        guard let limit = link.clickLimit else { return false }
        let linkId = link.id
        let reserved = try await store.read { db in try ClickAllowanceQueries.reserved(db, linkId: linkId) }
        guard let reserved, reserved >= limit else { return false }
        allowances.withLock { all in
            var allowance = all[linkId].flatMap { $0.limit == limit ? $0 : nil } ?? Allowance(limit: limit, remaining: 0, exhausted: true)
            allowance.exhausted = allowance.remaining == 0
            all[linkId] = allowance
        }
        return peek(link) == .exhausted
    }

    /// Puts back a place taken for a click that was not stored on this path (the asynchronous path takes its own).
    func giveBack(_ link: LinkRecord) {
        guard let limit = link.clickLimit else { return }
        allowances.withLock { all in
            if var allowance = all[link.id], allowance.limit == limit {
                allowance.remaining += 1
                all[link.id] = allowance
            }
        }
    }

    /// Reserves another block of places for this process; concurrent callers for one link share one reservation.
    func reserve(_ link: LinkRecord) async throws {
        guard let limit = link.clickLimit else { return }
        let linkId = link.id
        let task = reserving.withLock { tasks -> Task<Void, any Error> in
            if let running = tasks[linkId] { return running }
            let task = Task {
                let granted = try await self.store.write { db in try Self.reserve(db, linkId: linkId, limit: limit) }
                self.allowances.withLock { all in
                    var allowance = all[linkId].flatMap { $0.limit == limit ? $0 : nil } ?? Allowance(limit: limit, remaining: 0, exhausted: false)
                    allowance.remaining += granted
                    allowance.exhausted = granted == 0
                    all[linkId] = allowance
                }
            }
            tasks[linkId] = task
            return task
        }
        defer { reserving.withLock { tasks in if tasks[linkId] == task { tasks[linkId] = nil } } }
        try await task.value
    }

    /// Takes a place, reserving more when this process has none; false when the limit is reached.
    func takeReserving(_ link: LinkRecord) async throws -> Bool {
        while true {
            switch take(link) {
            case .granted: return true
            case .exhausted: return false
            case .unknown: try await reserve(link)
            }
        }
    }

    /// In the writer: locks the link's row (made on first use with the clicks stored so far), then raises `reserved`
    /// by a block of what is left under `limit`. The places granted; 0 when none is left.
    static func reserve(_ db: any SQLExecutor, linkId: String, limit: Int64) throws -> Int64 {
        if try ClickAllowanceQueries.lock(db, linkId: linkId) == 0 {
            try ClickAllowanceQueries.insertCountingClicks(db, linkId: linkId)
            try ClickAllowanceQueries.lock(db, linkId: linkId)
        }
        guard let reserved = try ClickAllowanceQueries.reserved(db, linkId: linkId) else { return 0 }
        let left = limit - reserved
        guard left > 0 else { return 0 }
        let block = min(left, max(1, min(largestBlock, left / 16)))
        try ClickAllowanceQueries.reserve(db, linkId: linkId, block: block)
        return block
    }
}

extension ClickAllowances: SharedObject {
    convenience init(_ services: ServerServices) { self.init(store: services.store) }
}

extension ServerServices {
    /// This process's places for clicks of capped links.
    var clickAllowances: ClickAllowances { shared(ClickAllowances.self) }
}
