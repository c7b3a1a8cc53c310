import Foundation

/// The SDK's state in one UserDefaults suite, under keys scoped to the endpoint and the start of the publishable key,
/// so two configurations in one app never share an identity. App Attest's key id goes to the device-only store (the
/// Keychain) when there is one.
final class SDKStorage: @unchecked Sendable {
    private let defaults: UserDefaults
    private let deviceOnly: (any DeviceOnlyStore)?
    private let prefix: String

    init(suiteName: String?, endpoint: URL, publishableKey: String, deviceOnly: (any DeviceOnlyStore)? = nil) {
        defaults = suiteName.flatMap(UserDefaults.init(suiteName:)) ?? .standard
        self.deviceOnly = deviceOnly
        let scope = (endpoint.host ?? "") + (endpoint.port.map { ":\($0)" } ?? "") + endpoint.path
        prefix = "linkrunway.\(scope).\(publishableKey.prefix(20))."
        guard let deviceOnly else { return }
        let keyId = prefix + Key.attestKeyId.rawValue
        if let kept = defaults.string(forKey: keyId) {
            // SDK 1.1.1 and earlier kept the key id in UserDefaults, which a backup restores: it moves.
            deviceOnly.set(kept, keyId)
            defaults.removeObject(forKey: keyId)
        } else if deviceOnly.string(keyId) != nil, defaults.object(forKey: prefix + Key.attestKeyState.rawValue) == nil {
            // The Keychain outlives the app's deletion; its UserDefaults and Apple's key do not: a reinstall starts over.
            deviceOnly.set(nil, keyId)
        }
    }

    /// What the device-only store keeps, when there is one.
    static let deviceOnlyKeys: Set<Key> = [.attestKeyId]

    enum Key: String, CaseIterable {
        case consent, installId, installSecret, match, clickToken, conversionTag, conversionTagAt
        /// The first launch's local time (seconds since 1970), where Apple's conversion windows start: recorded at the
        /// first start whatever the consent, never sent, and kept through a withdrawal. Not an identifier.
        case firstLaunchAt
        /// Whether this install id is a returning one (1 or 0): decided when the id is made, or at its first match
        /// request for an id made by an SDK older than 1.0.1.
        case matchReturning
        /// Events not yet acknowledged by the server, oldest first (JSON).
        case outbox
        /// An Apple Ads claim for this install id may have reached the server.
        case adServicesClaimed
        case schema, schemaFetchedDay, schemaFailedAt, highestFine, reengagementHighestFine
        case attestKeyId, attestKeyState, attestToken, attestTokenExpiresAt, attestTokenReceivedAt, attestFailures, attestNextAttemptAt
        /// The UTC day (days since 1970) of the App Attest keys made lately, and how many were made on it.
        case attestKeysDay, attestKeysMade
        /// The challenge `attestKey` failed on while Apple's service was unavailable, until when (local time) the
        /// server takes it for an attestation, and how many times it failed: tried again with the same key and hash
        /// (`outageWaits`).
        case attestOutageChallenge, attestOutageChallengeUntil, attestOutages
        /// The three booleans that outlive a withdrawal: this device's installation was reported (INSTALL, its Apple
        /// Ads claim, its first match), so consent given again reports nothing twice. None holds an identifier.
        case installReported, adServicesReported, matchRequested

        /// This installation's postbacks were registered with Apple (the lowest value, at the first launch with
        /// consent). Not an identifier, and it never reaches the server.
        case postbackRegistered

        static let survivors: [Key] = [.installReported, .adServicesReported, .matchRequested]
        /// What a withdrawal keeps: the three booleans, the first launch's time and the postback registration.
        var survivesWithdrawal: Bool { Self.survivors.contains(self) || self == .firstLaunchAt || self == .postbackRegistered }
    }

    func string(_ key: Key) -> String? {
        if let deviceOnly, Self.deviceOnlyKeys.contains(key) { return deviceOnly.string(prefix + key.rawValue) }
        return defaults.string(forKey: prefix + key.rawValue)
    }
    func bool(_ key: Key) -> Bool { defaults.bool(forKey: prefix + key.rawValue) }
    func double(_ key: Key) -> Double? { defaults.object(forKey: prefix + key.rawValue) as? Double }
    func int(_ key: Key) -> Int? { defaults.object(forKey: prefix + key.rawValue) as? Int }

    func set(_ value: String?, _ key: Key) {
        if let deviceOnly, Self.deviceOnlyKeys.contains(key) { return deviceOnly.set(value, prefix + key.rawValue) }
        write(value, key)
    }
    func set(_ value: Bool, _ key: Key) { write(value, key) }
    func set(_ value: Double?, _ key: Key) { write(value, key) }
    func set(_ value: Int?, _ key: Key) { write(value, key) }

    private func write(_ value: Any?, _ key: Key) {
        if let value { defaults.set(value, forKey: prefix + key.rawValue) } else { defaults.removeObject(forKey: prefix + key.rawValue) }
    }

    /// Deletes everything but the three booleans and the first launch's time.
    func forgetAll() {
        for key in Key.allCases where !key.survivesWithdrawal { defaults.removeObject(forKey: prefix + key.rawValue) }
        for key in Self.deviceOnlyKeys { deviceOnly?.set(nil, prefix + key.rawValue) }
    }

    /// Every key this SDK has written in the suite, with its value (for tests: nothing else is there).
    var everything: [String: Any] { defaults.dictionaryRepresentation().filter { $0.key.hasPrefix(prefix) } }
}
