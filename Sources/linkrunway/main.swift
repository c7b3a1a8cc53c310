import Foundation
import RunwayCLI

// The only place that reads the process environment.
signal(SIGPIPE, SIG_IGN)
exit(await CLI.run(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment))
