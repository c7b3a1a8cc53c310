/// An option a command accepts: a flag (`--json`) or an option with a value (`--name <name>`).
struct OptionSpec: Sendable {
    let name: String
    let valueName: String?
    let help: String
    /// The command cannot run without it; every missing one is named in one usage error.
    var isRequired = false

    static func flag(_ name: String, _ help: String) -> OptionSpec { OptionSpec(name: name, valueName: nil, help: help) }
    static func value(_ name: String, _ valueName: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, valueName: valueName, help: help)
    }
    static func required(_ name: String, _ valueName: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, valueName: valueName, help: help, isRequired: true)
    }
}

/// A command line that does not fit the command (exit code 64).
struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = message }
}

/// A command that ran and failed (exit code 1).
struct CommandFailure: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = message }
}

/// The options and positional arguments of one invocation.
struct ParsedArguments: Sendable {
    var values: [String: String] = [:]
    var flags: Set<String> = []
    var positionals: [String] = []

    /// Parses `arguments` against `options`; unknown options and missing values are usage errors.
    init(_ arguments: [String], options: [OptionSpec]) throws {
        var i = 0
        while i < arguments.count {
            let argument = arguments[i]
            i += 1
            if argument == "--" {
                positionals.append(contentsOf: arguments[i...])  // trap-safe: i <= arguments.count: it was just past an element
                break
            }
            guard argument.hasPrefix("--") else {
                positionals.append(argument)
                continue
            }
            var name = argument
            var inline: String?
            if let eq = argument.firstIndex(of: "=") {
                name = String(argument[..<eq])  // trap-safe: eq is an index of argument
                inline = String(argument[argument.index(after: eq)...])  // trap-safe: eq is an index of argument, so its successor is at most the end
            }
            guard let spec = options.first(where: { $0.name == name }) else {
                let guess = Suggestion.closest(to: name, among: options.map(\.name))
                throw UsageError("unknown option \(name)" + (guess.map { "; did you mean \($0)?" } ?? ""))
            }
            if spec.valueName == nil {
                guard inline == nil else { throw UsageError("\(name) takes no value") }
                flags.insert(name)
            } else if let inline {
                values[name] = inline
            } else {
                guard i < arguments.count else { throw UsageError("\(name) needs a value") }
                values[name] = arguments[i]
                i += 1
            }
        }
        guard !flags.contains("--help") else { return }
        let missing = options.filter { $0.isRequired && (values[$0.name] ?? "").isEmpty }.map(\.name)
        if !missing.isEmpty { throw UsageError("missing " + Self.list(missing)) }
    }

    /// `--a`, `--a and --b`, `--a, --b and --c`.
    static func list(_ names: [String]) -> String {
        names.count < 2 ? names.joined() : names.dropLast().joined(separator: ", ") + " and " + (names.last ?? "")
    }

    func value(_ name: String) -> String? { values[name] }

    func required(_ name: String) throws -> String {
        guard let value = values[name], !value.isEmpty else { throw UsageError("\(name) is required") }
        return value
    }

    func flag(_ name: String) -> Bool { flags.contains(name) }
}
