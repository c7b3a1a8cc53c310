import RunwayServer

/// `docs/cli.md`: every command with its usage and options, generated from the commands themselves so it cannot drift.
enum CommandReference {
    static func page() -> String {
        var out = """
            # Command reference

            Generated from the CLI's commands by `make docs`; a test fails when this page and the code differ.
            `linkrunway <command> --help` prints the same for one command. The management commands talk to a running server
            (`LINKRUNWAY_URL`, default `http://127.0.0.1:8080`) with a key (`LINKRUNWAY_KEY`); `serve`, `migrate`, `backup`,
            `restore` and the `verify` commands work on their own. Exit codes: 0 done, 1 failed, 64 a command line that does
            not fit.

            | command | what it does |
            |---|---|

            """
        for command in CLI.commands {
            out += "| [`\(command.words.joined(separator: " "))`](#\(anchor(command))) | \(ReferenceDocs.cell(command.summary)) |\n"
        }
        for command in CLI.commands {
            out += "\n## `linkrunway \(command.words.joined(separator: " "))`\n\n\(command.summary)\n\n```\n\(usage(command))\n```\n"
            if !command.details.isEmpty { out += "\n\(command.details)\n" }
            out += "\n| option | meaning |\n|---|---|\n"
            for option in command.options where option.name != "--help" {
                let name = option.name + (option.valueName.map { " <\($0)>" } ?? "")
                // GitHub's tables split on `|` even inside code spans, unless it is escaped.
                out += "| `\(name.replacingOccurrences(of: "|", with: "\\|"))` | \(ReferenceDocs.cell(option.help)) |\n"
            }
        }
        return out
    }

    static func usage(_ command: Command) -> String {
        var line = "linkrunway \(command.words.joined(separator: " ")) [options]"
        if !command.arguments.isEmpty { line += " \(command.arguments)" }
        return line
    }

    /// The heading's anchor as GitHub makes it: lower case, spaces to hyphens, punctuation dropped.
    static func anchor(_ command: Command) -> String {
        "linkrunway-" + command.words.joined(separator: "-")
    }
}
