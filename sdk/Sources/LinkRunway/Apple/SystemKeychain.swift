// The Keychain (Security): iOS, tvOS and macOS. Items are generic passwords of the service `LinkRunway`, readable
// after the first unlock and never leaving the device: not in backups, not moved to a new device.
#if (os(iOS) || os(tvOS) || os(macOS) || LINKRUNWAY_APPLE_STANDINS) && canImport(Security)
import Foundation
import Security

/// Keychain items for what must not outlive this device (https://developer.apple.com/documentation/security/keychain-items).
struct SystemKeychain: DeviceOnlyStore {
    static let service = "LinkRunway"

    /// https://developer.apple.com/documentation/security/secitemcopymatching(_:_:)
    func string(_ name: String) -> String? {
        let query: [CFString: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: Self.service, kSecAttrAccount: name,
                                      kSecUseDataProtectionKeychain: true, kSecReturnData: true, kSecMatchLimit: kSecMatchLimitOne]
        var result: CFTypeRef?
        // The pointer is made explicitly, not by `&result`: the availability check's standard library (built from its
        // interface) lacks the implicit conversion's intrinsics.
        let status = withUnsafeMutablePointer(to: &result) { SecItemCopyMatching(query as CFDictionary, $0) }
        guard status == errSecSuccess, let data = result as? Data else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// Replaces the item: https://developer.apple.com/documentation/security/secitemdelete(_:) then
    /// https://developer.apple.com/documentation/security/secitemadd(_:_:), with
    /// https://developer.apple.com/documentation/security/ksecattraccessibleafterfirstunlockthisdeviceonly.
    func set(_ value: String?, _ name: String) {
        let item: [CFString: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: Self.service, kSecAttrAccount: name,
                                     kSecUseDataProtectionKeychain: true]
        _ = SecItemDelete(item as CFDictionary)
        guard let value else { return }
        var added = item
        added[kSecValueData] = Data(value.utf8)
        added[kSecAttrAccessible] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
        _ = SecItemAdd(added as CFDictionary, nil)
    }
}
#endif
