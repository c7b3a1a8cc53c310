/// One thing an operator can set: its environment variable, its flag, its default as documented, what it means, and
/// how a value is read into `Settings` (false when the value is refused). `docs/configuration.md` lists every one.
package struct SettingDefinition<Settings>: Sendable {
    package let environment: String
    package let flag: String
    package let defaultValue: String
    package let summary: String
    package let apply: @Sendable (inout Settings, String) -> Bool

    package init(environment: String, flag: String, defaultValue: String, summary: String,
                 apply: @escaping @Sendable (inout Settings, String) -> Bool) {
        self.environment = environment
        self.flag = flag
        self.defaultValue = defaultValue
        self.summary = summary
        self.apply = apply
    }
}

/// What an operator can set for one capability: a value whose `init()` holds the defaults, and the definitions that
/// fill it from the environment and flags. A capability names its type (`Capability.settings`); the server's
/// configuration keeps one value of each, and handlers read theirs with `services.settings[LinksSettings.self]`.
/// Adding a setting to a capability is a field and a definition, both in its folder.
package protocol CapabilitySettings: Sendable {
    init()
    static var definitions: [SettingDefinition<Self>] { get }
}

extension CapabilitySettings {
    /// Its definitions, reading into and writing back this capability's value in a set.
    package static var definitionsInSet: [SettingDefinition<CapabilitySettingsSet>] {
        definitions.map { definition in
            SettingDefinition(environment: definition.environment, flag: definition.flag, defaultValue: definition.defaultValue,
                              summary: definition.summary) { set, value in
                var settings = set[Self.self]
                guard definition.apply(&settings, value) else { return false }
                set[Self.self] = settings
                return true
            }
        }
    }
}

/// Every capability's settings as configured, by type; a type never set reads as its defaults.
package struct CapabilitySettingsSet: Sendable {
    private var values: [ObjectIdentifier: any CapabilitySettings] = [:]

    package init() {}

    package subscript<Settings: CapabilitySettings>(_ type: Settings.Type) -> Settings {
        get { values[ObjectIdentifier(type)] as? Settings ?? Settings() }
        set { values[ObjectIdentifier(type)] = newValue }
    }
}
