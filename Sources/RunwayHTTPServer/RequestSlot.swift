/// What libmicrohttpd keeps for a request between calls (its `req_cls` pointer), read and written only here: nothing
/// yet, a GET waiting to be tried on the hot path (which owns nothing), or a tracked request's state, retained once
/// when stored and released once when taken in the completion callback.
enum RequestSlot {
    case empty
    case hotCandidate
    case tracked(RequestState)

    /// The slot's contents; a tracked state stays retained by the slot.
    static func read(_ slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> RequestSlot {
        guard let pointer = slot.pointee else { return .empty }
        if pointer == hotCandidateMark { return .hotCandidate }
        return .tracked(Unmanaged<RequestState>.fromOpaque(pointer).takeUnretainedValue())
    }

    /// Stores `contents` in an empty slot (or over a hot candidate, which owns nothing); a tracked state is retained.
    static func store(_ contents: RequestSlot, in slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>) {
        switch contents {
        case .empty: slot.pointee = nil
        case .hotCandidate: slot.pointee = hotCandidateMark
        case .tracked(let state): slot.pointee = Unmanaged.passRetained(state).toOpaque()
        }
    }

    /// Empties the slot and returns what it held, giving back the slot's reference to a tracked state.
    static func take(_ slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> RequestSlot {
        guard let pointer = slot.pointee else { return .empty }
        slot.pointee = nil
        if pointer == hotCandidateMark { return .hotCandidate }
        return .tracked(Unmanaged<RequestState>.fromOpaque(pointer).takeRetainedValue())
    }
}

/// The address stored for a hot candidate: no state is made for a GET that the hot path may answer. Never written
/// through, so shared safely.
nonisolated(unsafe) private let hotCandidateMark = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)
