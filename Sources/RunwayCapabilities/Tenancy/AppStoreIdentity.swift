import LinkRunwayAPI
import RunwayStore

/// Who receives an App Store id's postbacks. Any number of apps may name an App Store id, but Apple-signed postbacks
/// follow only the app that proved it: with a verified App Store notification at a production surface, a signed
/// production app transaction, or an admin key's word. Until then they are kept unrouted, and move to the app that
/// proves it.
enum AppStoreIdentity {
    /// How an app proved its App Store id; a stronger proof takes the id from an app that holds a weaker one.
    enum Proof: String, Sendable, CaseIterable {
        /// Held before proofs were asked for, with a verified production notification as evidence.
        case heldBeforeProofs = "held_before_proofs"
        /// A production app transaction Apple signed for the app's bundle id and App Store id. Any customer's device
        /// has one, so a notification or an admin outranks it.
        case appTransaction = "app_transaction"
        /// An App Store notification Apple sent for the app, which only the developer's configured URL receives.
        case notification
        /// An admin key asserted it.
        case admin

        var strength: Int {
            switch self {
            case .appTransaction: return 1
            case .heldBeforeProofs, .notification: return 2
            case .admin: return 3
            }
        }
    }

    /// The app holding the App Store id's proof, with how it proved it.
    struct Holder: Sendable, Equatable {
        let appId: String
        let workspaceId: String
        let proof: Proof
        let provenAt: Int64
    }

    /// What proving did.
    struct Outcome: Sendable, Equatable {
        /// The app holds the proof now (it may have before).
        var holds: Bool
        /// The app took the id from another, or held it for the first time: routing changed.
        var changed: Bool
        /// Postbacks that moved to the app.
        var postbacksMoved = 0
    }

    /// Records `proof` for the app's claim on its App Store id. An app holding an equal or stronger proof keeps the
    /// id; a weaker holder loses it. When the app takes the id, the postbacks kept unrouted for it, and those the
    /// weaker holder had, move to it.
    @discardableResult
    static func prove(_ db: any SQLExecutor, app: App, proof: Proof, now: Int64) throws -> Outcome {
        guard let appStoreId = app.appStoreId else { return Outcome(holds: false, changed: false) }
        try AppStoreIdentityQueries.claim(db, appStoreId: appStoreId, app: app, now: now)
        let current = try AppStoreIdentityQueries.holder(db, appStoreId: appStoreId)
        if let current, current.appId == app.id {
            if proof.strength > current.proof.strength {
                try AppStoreIdentityQueries.setProof(db, proof, appStoreId: appStoreId, appId: app.id)
            }
            return Outcome(holds: true, changed: false)
        }
        if let current, current.proof.strength >= proof.strength { return Outcome(holds: false, changed: false) }
        if let current {
            try AppStoreIdentityQueries.unprove(db, appStoreId: appStoreId, appId: current.appId)
        }
        try AppStoreIdentityQueries.markProven(db, proof, appStoreId: appStoreId, appId: app.id, now: now)
        let moved = try PostbackReceiver.adopt(db, app: app, appStoreId: appStoreId, from: current?.appId, now: now)
        return Outcome(holds: true, changed: true, postbacksMoved: moved)
    }
}
