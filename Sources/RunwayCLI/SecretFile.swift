import Foundation

/// Writes a secret to a file only its owner can read: a new file with mode 0600 beside the target, synced, then renamed
/// over it (a file left from an older database is replaced whole), and the folder synced.
enum SecretFile {
    struct Failure: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    static func write(_ text: String, to path: String) throws {
        let staged = path + ".partial-\(getpid())"
        let descriptor = open(staged, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Failure(message: "cannot create \(staged): \(String(cString: strerror(errno)))") }
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            // trap-safe: bytes is not empty inside this loop, so it has a base address
            let n = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress! + written, $0.count - written) }
            guard n > 0 else {
                let reason = String(cString: strerror(errno))
                close(descriptor)
                unlink(staged)
                throw Failure(message: "cannot write \(staged): \(reason)")
            }
            written += n
        }
        let synced = fsync(descriptor) == 0
        guard close(descriptor) == 0, synced, rename(staged, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(staged)
            throw Failure(message: "cannot put the key in \(path): \(reason)")
        }
        let folder = open(URL(fileURLWithPath: path).deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
    }
}
