import Foundation
import RunwayCapabilities
import RunwayConsole
import RunwayKit
import RunwayServer
import Synchronization

/// A clock tests move by hand: the time of day, and elapsed time that moves with it.
package final class ManualClock: Sendable {
    private let start: Date
    private let origin = ContinuousClock.now
    private let current: Mutex<Date>

    package init(_ start: Date = Date(timeIntervalSince1970: 1_795_000_000)) {
        self.start = start
        current = Mutex(start)
    }

    package var now: Date { current.withLock { $0 } }
    package func advance(seconds: Double) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
    package var wall: WallClock { WallClock { [self] in self.now } }
    package var monotonic: MonotonicClock { MonotonicClock { [self] in self.origin + .milliseconds(Int64(self.now.timeIntervalSince(self.start) * 1000)) } }
}
