import RunwayCapabilities
import RunwayConsole
import RunwayKit
import RunwayStore

/// Every schema step, in order, for both dialects: the platform's and every capability's, merged by id. Append only:
/// a released step never changes (`MigrationListTests` holds each to its SQL).
public enum Schema {
    public static let migrations: [Migration] = (PlatformSchema.migrations + ServerApplication.capabilities.flatMap(\.migrations))
        .sorted { $0.id < $1.id }

    /// The newest step this version knows, which its heartbeat names (`ServerInstance.olderAlive`).
    public static let newestStep = migrations.last?.id ?? ""

    /// What the migrations just applied changed that an operator should hear about, as sentences, in the steps' order.
    public static func notes(afterApplying applied: [String], _ store: any Store) async throws -> [String] {
        let notes = ServerApplication.capabilities.reduce(into: [String: @Sendable (any Store) async throws -> String?]()) { notes, capability in
            notes.merge(capability.migrationNotes) { first, _ in first }
        }
        var sentences: [String] = []
        for id in applied {
            if let note = notes[id], let sentence = try await note(store) { sentences.append(sentence) }
        }
        return sentences
    }
}
