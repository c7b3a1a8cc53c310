import Foundation

/// A fresh directory under the system's temporary folder, removed when the value is released.
package final class TemporaryDirectory: @unchecked Sendable {
    package let url: URL

    package init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("linkrunway-test-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    package func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}

/// Runs blocking work (sockets, processes) on its own thread so it never holds a cooperative thread that the
/// in-process server's handlers need.
package func offloaded<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}
