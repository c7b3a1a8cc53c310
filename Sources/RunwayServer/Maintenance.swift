import Foundation
import RunwayCapabilities
import RunwayConsole
import RunwayKit
import RunwayStore

/// The hourly pass: partitions ahead, old address keys forgotten, then each capability's upkeep (retention, sessions,
/// commissions released).
enum Maintenance {
    static func run(_ services: ServerServices, policy: RetentionPolicy) async throws -> RetentionReport {
        let now = services.clock.nowMilliseconds()
        var report = RetentionReport()
        _ = try await AddressHasher.forgetOldKeys(store: services.store, now: now)
        for capability in ServerApplication.capabilities {
            try await capability.maintain(services, policy: policy, now: now, report: &report)
        }
        report.partitions = try await PartitionMaintenance.run(policy.tables, store: services.store, now: services.clock.now())
        return report
    }
}
