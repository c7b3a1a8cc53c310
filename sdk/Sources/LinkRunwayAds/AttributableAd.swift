import Foundation

/// One ad on screen and its impression: tell it when the ad appears, disappears and is tapped, and it makes Apple's
/// calls in that order (`beginView()`, `endView()`, `handleTap(reengagementURL:)` or `handleTap()`). One showing per
/// ad: after it disappears, prepare a new one for the next showing, as Apple asks
/// (https://developer.apple.com/documentation/adattributionkit/appimpression).
public actor AttributableAd {
    /// What the server signed.
    public nonisolated let impression: PlacementImpression
    let recorder: any AppImpressionRecorder

    enum Phase: Sendable { case ready, viewing, ended }
    private(set) var phase = Phase.ready
    /// Apple's calls, one after another in the order the app made them.
    private var calls: Task<Void, Never>?

    init(impression: PlacementImpression, recorder: any AppImpressionRecorder) {
        self.impression = impression
        self.recorder = recorder
    }

    /// The ad became visible: begins the view-through impression (Apple records it once the ad has been visible for two
    /// seconds). A second call while it is visible does nothing; after the ad disappeared it throws `adAlreadyShown`.
    public func adAppeared() async throws {
        switch phase {
        case .viewing: return
        case .ended: throw LinkRunwayAdsError.adAlreadyShown
        case .ready: phase = .viewing
        }
        let recorder = recorder
        do {
            try await inOrder { try await recorder.beginView() }
        } catch {
            // Apple did not begin the view, so there is nothing to end.
            if phase == .viewing { phase = .ready }
            throw error
        }
    }

    /// The ad went away: ends the view-through impression. Nothing happens for an ad that never appeared.
    public func adDisappeared() async throws {
        guard phase == .viewing else { return }
        phase = .ended
        let recorder = recorder
        try await inOrder { try await recorder.endView() }
    }

    /// The person tapped the ad (under a `UIEventAttributionView`, or Apple refuses the tap): Apple records a
    /// click-through and opens the advertised app's product page, or, when it is installed and the placement has a
    /// re-engagement URL (custom creative, iOS 18), opens the app at that universal link.
    public func adTapped() async throws {
        let recorder = recorder, url = impression.reengagementURL
        try await inOrder { try await recorder.handleTap(reengagementURL: url) }
    }

    private func inOrder(_ call: @escaping @Sendable () async throws -> Void) async throws {
        let previous = calls
        let task = Task {
            await previous?.value
            try await call()
        }
        calls = Task { _ = await task.result }
        try await task.value
    }
}
