import RunwayKit

/// What an operator sets for the operations routes: the token `/metrics` asks for.
package struct OperationsSettings: CapabilitySettings {
    /// The bearer token `/metrics` asks for, if any.
    package var metricsToken: String?

    package init() {}

    package static let definitions: [SettingDefinition<OperationsSettings>] = [
        SettingDefinition(environment: "LINKRUNWAY_METRICS_TOKEN", flag: "--metrics-token", defaultValue: "none",
                          summary: "A bearer token `/metrics` then requires (at least 16 characters). `/metrics` never answers on a link domain either way.") { s, v in
            guard v.utf8.count >= 16, !v.contains(where: \.isWhitespace) else { return false }
            s.metricsToken = v
            return true
        },
    ]
}
