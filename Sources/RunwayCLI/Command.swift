/// What a command gets besides its arguments: the environment (read once in main) and where to write.
struct CLIContext: Sendable {
    let environment: [String: String]
    let output: @Sendable (String) -> Void
    let errorOutput: @Sendable (String) -> Void
    /// Text for the terminal as it is, without a line end added (progress lines redrawn with `\r`).
    var progressOutput: @Sendable (String) -> Void = { printRaw($0, to: 2) }
}

/// One command: `linkrunway <words…> [options] [arguments]`, with its own `--help`.
struct Command: Sendable {
    let words: [String]
    let summary: String
    let arguments: String
    let options: [OptionSpec]
    let details: String
    let run: @Sendable (ParsedArguments, CLIContext) async throws -> Void

    init(_ words: [String], summary: String, arguments: String = "", options: [OptionSpec] = [], details: String = "",
         run: @escaping @Sendable (ParsedArguments, CLIContext) async throws -> Void) {
        self.words = words
        self.summary = summary
        self.arguments = arguments
        self.options = options + [.flag("--help", "Show this help.")]
        self.details = details
        self.run = run
    }

    var help: String {
        var out = "\(summary)\n\nUsage: linkrunway \(words.joined(separator: " "))"
        if !options.isEmpty { out += " [options]" }
        if !arguments.isEmpty { out += " \(arguments)" }
        out += "\n"
        if !details.isEmpty { out += "\n\(details)\n" }
        out += "\nOptions:\n"
        let width = options.map { $0.name.count + ($0.valueName.map { $0.count + 3 } ?? 0) }.max() ?? 0
        for option in options {
            let left = option.name + (option.valueName.map { " <\($0)>" } ?? "")
            out += "  \(left.padding(toLength: width + 2, withPad: " ", startingAt: 0))\(option.isRequired ? "Required. " : "")\(option.help)\n"
        }
        return out
    }
}
