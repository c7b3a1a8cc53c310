import CSQLite
import Foundation
import RunwayStore

/// Makes a database's commits durable by syncing its WAL file, for a writer that runs at `synchronous=NORMAL` (where
/// COMMIT writes the WAL but does not sync it) and answers its callers only after this ran (`DurabilityBarrier`).
/// `fdatasync` flushes the file's data whichever descriptor wrote it, so a descriptor of its own serves; it is opened
/// again when the WAL was replaced.
final class WALSync: @unchecked Sendable {
    let path: String
    private let lock = NSLock()
    private var descriptor: Int32 = -1
    private var identity: (device: UInt64, inode: UInt64) = (0, 0)

    /// The WAL of the database `connection` has open.
    init(databasePath: String) {
        path = databasePath + "-wal"
    }

    deinit { if descriptor >= 0 { Foundation.close(descriptor) } }

    /// Syncs everything written to the WAL so far; throws `unavailable` when the disk refused.
    func sync() throws {
        lock.lock()
        defer { lock.unlock() }
        var status = stat()
        guard stat(path, &status) == 0 else {
            // No WAL yet: nothing was written, so nothing waits for the disk.
            if errno == ENOENT { return }
            throw StoreError.unavailable("cannot find the WAL to sync (errno \(errno))")
        }
        let current = (UInt64(status.st_dev), UInt64(status.st_ino))
        if descriptor < 0 || current != identity {
            if descriptor >= 0 { Foundation.close(descriptor) }
            descriptor = Foundation.open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw StoreError.unavailable("cannot open the WAL to sync (errno \(errno))") }
            identity = current
        }
        while fdatasync(descriptor) != 0 {
            if errno != EINTR { throw StoreError.unavailable("the disk did not sync the WAL (errno \(errno))") }
        }
    }
}
