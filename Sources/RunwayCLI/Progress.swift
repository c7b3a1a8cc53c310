import Foundation

/// Progress of a long command, on standard error and only when it is a terminal: one line redrawn in place. Piped or
/// redirected, nothing is written, so scripts and logs see only the result.
enum Progress {
    /// Whether standard error is a terminal (`LINKRUNWAY_PROGRESS=always` or `never` decide instead, for tests).
    static func shown(_ context: CLIContext) -> Bool {
        switch context.environment["LINKRUNWAY_PROGRESS"] {
        case "always": true
        case "never": false
        default: isatty(2) == 1
        }
    }

    /// A reporter of copied pages, or nil when progress is not shown.
    static func pages(_ doing: String, _ context: CLIContext) -> ((Int, Int) -> Void)? {
        guard shown(context) else { return nil }
        return { copied, total in
            let percent = total > 0 ? copied * 100 / total : 100
            context.progressOutput("\r\(doing): \(percent)% (\(copied) of \(total) pages)")
        }
    }

    /// A reporter of a line of status redrawn in place, or nil when progress is not shown.
    static func status(_ context: CLIContext) -> ((String) -> Void)? {
        guard shown(context) else { return nil }
        return { line in context.progressOutput("\r\u{1B}[K" + line) }
    }

    /// Ends the progress line, so the result starts on a line of its own.
    static func finish(_ context: CLIContext) {
        if shown(context) { context.progressOutput("\n") }
    }
}
