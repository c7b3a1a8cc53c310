import RunwayKit
import Synchronization

/// The clicks this process's matches are claiming, and those they claimed a moment ago. Installs behind one address (a
/// carrier's NAT) all plan the same newest clicks; without this, every match of a group commit but the first would
/// lose its claim in the writer and look the free clicks up again there. A match reserves the first planned click no
/// other match holds or has just claimed (a plan read before that claim committed still shows it free), so each claims
/// a different one. The store's claim stays the arbiter (another server, or a claim older than those remembered, can
/// still make one lose and take the slower path); this only keeps the writer from doing that for every match.
final class ClaimsInFlight: Sendable {
    private struct State {
        var held: Set<String> = []
        var claimed: Set<String> = []
        /// `claimed` in the order they came, a ring once `remembered` long, to forget the oldest first.
        var claimedOrder: [String] = []
        /// The ring's oldest entry, the next to forget.
        var oldest = 0
    }

    private let state = Mutex(State())
    /// How many claimed clicks are remembered: far more than a plan can read before its snapshot sees them.
    static let remembered = 4096

    /// Reserves the first of `tokens` (newest first) that no match in flight holds or has just claimed. Returns it with
    /// the tokens before it, which others hold or took; nil when none is free (then nothing is reserved).
    func reserveFirstFree(_ tokens: [String]) -> (token: String, takenByOthers: [String])? {
        state.withLock { state in
            guard let free = tokens.firstIndex(where: { !state.held.contains($0) && !state.claimed.contains($0) }) else { return nil }
            // trap-safe: free is an index of tokens, found on the line above
            state.held.insert(tokens[free])
            // trap-safe: free is an index of tokens, found above
            return (tokens[free], Array(tokens[..<free]))
        }
    }

    /// Gives a reservation back once its match's write has ended; `claimed` is the click the match's committed write
    /// claimed, if any (the reserved one, or another found in the write), remembered as taken.
    func release(_ token: String?, claimed: String?) {
        state.withLock { state in
            if let token { state.held.remove(token) }
            guard let claimed, state.claimed.insert(claimed).inserted else { return }
            if state.claimedOrder.count < Self.remembered {
                state.claimedOrder.append(claimed)
            } else {
                // trap-safe: oldest stays in 0..<remembered, the array's count once full
                state.claimed.remove(state.claimedOrder[state.oldest])
                state.claimedOrder[state.oldest] = claimed
                state.oldest = (state.oldest + 1) % Self.remembered
            }
        }
    }

    /// Reservations held now, and claimed clicks remembered (for tests).
    var counts: (held: Int, claimed: Int) { state.withLock { ($0.held.count, $0.claimed.count) } }
}

extension ClaimsInFlight: SharedObject {
    convenience init(_ services: ServerServices) { self.init() }
}

extension ServerServices {
    /// The clicks this process's matches are claiming.
    var claimsInFlight: ClaimsInFlight { shared(ClaimsInFlight.self) }
}
