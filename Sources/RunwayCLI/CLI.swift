import Foundation
import LinkRunwayAPI

/// The `linkrunway` command line. Exit codes: 0 success, 1 failure, 64 usage error.
public enum CLI {
    /// Commands of one area of `--help`. A named type (not a tuple) keeps the list below quick to type-check.
    struct CommandGroup {
        let area: String
        let commands: [Command]

        init(_ area: String, _ commands: [Command]) {
            self.area = area
            self.commands = commands
        }
    }

    /// Every command, by area, in the order `--help` lists them.
    static let groups: [CommandGroup] = [serverCommands, tenancyCommands, linkCommands, attributionCommands, postbackCommands, affiliateCommands, retentionCommands, verifyCommands, devCommands]

    static let serverCommands: CommandGroup = CommandGroup("Run the server", [ServeCommands.serve, ServeCommands.migrate, BackupCommands.backup, BackupCommands.restore,
        DoctorCommand.doctor])
    static let tenancyCommands: CommandGroup = CommandGroup("Workspaces, apps and keys", [
        TenancyCommands.workspaceCreate, TenancyCommands.workspaceList,
        TenancyCommands.appCreate, TenancyCommands.appList, TenancyCommands.appShow, TenancyCommands.appUpdate,
        TenancyCommands.keyCreate, TenancyCommands.keyList, TenancyCommands.keyRevoke,
        UserCommands.create, UserCommands.list, UserCommands.remove,
    ])
    static let linkCommands: CommandGroup = CommandGroup("Links", [
        LinkCommands.domainAdd, LinkCommands.domainList, LinkCommands.domainVerify, LinkCommands.domainRemove,
        LinkCommands.linkCreate, LinkCommands.linkList, LinkCommands.linkShow, LinkCommands.linkUpdate,
        LinkCommands.linkDisable, LinkStatsCommand.command, LinkCommands.linkQR, QRLogoCommands.add, QRLogoCommands.list, QRLogoCommands.remove,
        LinkImportCommand.command,
    ])
    static let attributionCommands: CommandGroup = CommandGroup("Attribution and webhooks", [
        AttributionCommands.simulateClick, AttributionCommands.simulateInstall,
        AttributionCommands.installExplain, AttributionCommands.installExport, AttributionCommands.installDelete,
        AttributionCommands.reportFunnel,
        WebhookCommands.create, WebhookCommands.list, WebhookCommands.deliveries, WebhookCommands.test,
        WebhookCommands.redeliver, WebhookCommands.delete,
    ])
    static let postbackCommands: CommandGroup = CommandGroup("Postbacks and conversion values", [PostbackCommands.rulesSet, PostbackCommands.rulesShow,
        PostbackCommands.reportPostbacks, PostbackCommands.keygen,
        PostbackCommands.impressionSign, PlistCommands.fragment, PlistCommands.check,
        PlistCommands.settings])
    static let affiliateCommands: CommandGroup = CommandGroup("Affiliates", [
        AffiliateCommands.create, AffiliateCommands.list, AffiliateCommands.program, AffiliateCommands.code,
        AffiliateCommands.link, AffiliateCommands.balance, AffiliateCommands.payout, AffiliateCommands.payoutsReport,
        AffiliateCommands.surface, AppStoreReplayCommands.keySet, AppStoreReplayCommands.keyShow, AppStoreReplayCommands.keyDelete,
        AppStoreReplayCommands.replay,
    ])
    static let retentionCommands: CommandGroup = CommandGroup("Retention messages", RetentionCommands.all)
    static let verifyCommands: CommandGroup = CommandGroup("Check Apple's signed data offline", [VerifyCommands.appAttest, PostbackCommands.verifySKAdNetwork,
        PostbackCommands.verifyAdAttributionKit, AffiliateCommands.verify])
    static let devCommands: CommandGroup = CommandGroup("Development", [DevCommands.fakeAdServices, DevCommands.fakeAppStoreAPI,
        DevCommands.fakeRetentionAPI, DevCommands.retentionRequests])

    static let commands: [Command] = groups.flatMap(\.commands)

    public static let success: Int32 = 0
    public static let failure: Int32 = 1
    public static let usage: Int32 = 64

    /// Runs one invocation; `arguments` excludes the program name.
    public static func run(_ arguments: [String], environment: [String: String],
                           output: @escaping @Sendable (String) -> Void = { printOutput($0) },
                           errorOutput: @escaping @Sendable (String) -> Void = { printError($0) }) async -> Int32 {
        let context = CLIContext(environment: environment, output: output, errorOutput: errorOutput)
        if arguments.isEmpty || arguments == ["--help"] || arguments == ["help"] || arguments == ["-h"] {
            output(overview)
            return arguments.isEmpty ? usage : success
        }
        if arguments == ["--version"] {
            output("linkrunway \(LinkRunwayVersion.current)")
            return success
        }
        // The longest run of leading words that names a command.
        guard let command = commands.filter({ arguments.starts(with: $0.words) }).max(by: { $0.words.count < $1.words.count }) else {
            let group = commands.filter { $0.words.first == arguments[0] }
            if !group.isEmpty, arguments.count == 1 || arguments[1] == "--help" {
                output(groupHelp(arguments[0], group))
                return arguments.count == 1 ? usage : success
            }
            // One short line, a guess, and where the list is; not the whole list on standard error.
            let typed = arguments.prefix(2).joined(separator: " ")
            let guess = Suggestion.closest(to: typed, among: commands.map { $0.words.joined(separator: " ") })
                ?? Suggestion.closest(to: arguments[0], among: Array(Set(commands.map { $0.words[0] })))
            errorOutput("error: unknown command \"\(typed)\"" + (guess.map { "; did you mean \"\($0)\"?" } ?? "")
                        + "\nRun linkrunway --help for the commands.")
            return usage
        }
        let rest = Array(arguments.dropFirst(command.words.count))
        do {
            let parsed = try ParsedArguments(rest, options: command.options)
            if parsed.flag("--help") {
                output(command.help)
                return success
            }
            try await command.run(parsed, context)
            return success
        } catch let error as UsageError {
            errorOutput("error: \(error)\nRun linkrunway \(command.words.joined(separator: " ")) --help for its options.")
            return usage
        } catch let error as CommandFailure {
            errorOutput("error: \(error)")
            return failure
        } catch {
            errorOutput("error: \(error)")
            return failure
        }
    }

    static var overview: String {
        var out = "linkrunway: self-hosted deep links and attribution for Apple apps.\n\nUsage: linkrunway <command> [options]\n"
        let width = commands.map { $0.words.joined(separator: " ").count }.max() ?? 0
        for group in groups {
            out += "\n\(group.area):\n"
            for command in group.commands {
                out += "  \(command.words.joined(separator: " ").padding(toLength: width + 2, withPad: " ", startingAt: 0))\(command.summary)\n"
            }
        }
        out += "\nRun linkrunway <command> --help for its options. Management commands talk to a running server:\n"
        out += "set LINKRUNWAY_URL (default http://127.0.0.1:8080) and LINKRUNWAY_KEY.\n"
        return out
    }

    static func groupHelp(_ word: String, _ group: [Command]) -> String {
        "Usage: linkrunway \(word) <\(group.map { $0.words.dropFirst().joined(separator: " ") }.joined(separator: "|"))> [options]\n\n"
            + group.map { "  \($0.words.joined(separator: " ")): \($0.summary)" }.joined(separator: "\n") + "\n"
    }
}

/// Writes a line to standard output, unbuffered (the admin key banner must not wait in a buffer).
@usableFromInline @Sendable func printOutput(_ text: String) { writeLine(text, to: 1) }

/// Writes a line to standard error.
@usableFromInline @Sendable func printError(_ text: String) { writeLine(text, to: 2) }

private func writeLine(_ text: String, to descriptor: Int32) { printRaw(text + "\n", to: descriptor) }

/// Writes `text` as it is.
@Sendable func printRaw(_ text: String, to descriptor: Int32) {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let n = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
        if n <= 0 { return }
        bytes = bytes.dropFirst(n)
    }
}
