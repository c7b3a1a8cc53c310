// A stand-in for Apple's Security (with the Core Foundation types its Keychain calls take), for type-checking only:
// exactly the symbols LinkRunway's Keychain adapter uses, as documented on the page named above each. In Apple's SDK
// the Core Foundation types are classes bridged to Swift's dictionary and string; here they are those Swift types, so
// the adapter's `as CFDictionary` reads as it does there. Bodies never run.
import Foundation

/// https://developer.apple.com/documentation/corefoundation/cfstring
public typealias CFString = String
/// https://developer.apple.com/documentation/corefoundation/cfdictionary
public typealias CFDictionary = [CFString: Any]
/// https://developer.apple.com/documentation/corefoundation/cftyperef
public typealias CFTypeRef = AnyObject
/// https://developer.apple.com/documentation/kernel/osstatus
public typealias OSStatus = Int32

/// https://developer.apple.com/documentation/security/errsecsuccess
public var errSecSuccess: OSStatus { 0 }

/// https://developer.apple.com/documentation/security/ksecclass
@available(iOS 2.0, macOS 10.6, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
public let kSecClass: CFString = "class"
/// https://developer.apple.com/documentation/security/ksecclassgenericpassword
@available(iOS 2.0, macOS 10.6, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
public let kSecClassGenericPassword: CFString = "genp"
/// https://developer.apple.com/documentation/security/ksecattrservice
@available(iOS 2.0, macOS 10.6, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
public let kSecAttrService: CFString = "svce"
/// https://developer.apple.com/documentation/security/ksecattraccount
@available(iOS 2.0, macOS 10.6, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
public let kSecAttrAccount: CFString = "acct"
/// https://developer.apple.com/documentation/security/ksecattraccessible
@available(iOS 4.0, macOS 10.9, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
public let kSecAttrAccessible: CFString = "pdmn"
/// https://developer.apple.com/documentation/security/ksecattraccessibleafterfirstunlockthisdeviceonly
@available(iOS 4.0, macOS 10.9, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
public let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString = "cku"
/// https://developer.apple.com/documentation/security/ksecusedataprotectionkeychain
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
public let kSecUseDataProtectionKeychain: CFString = "nleg"
/// https://developer.apple.com/documentation/security/ksecvaluedata
@available(iOS 2.0, macOS 10.6, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
public let kSecValueData: CFString = "v_Data"
/// https://developer.apple.com/documentation/security/ksecreturndata
@available(iOS 2.0, macOS 10.6, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
public let kSecReturnData: CFString = "r_Data"
/// https://developer.apple.com/documentation/security/ksecmatchlimit
@available(iOS 2.0, macOS 10.6, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
public let kSecMatchLimit: CFString = "m_Limit"
/// https://developer.apple.com/documentation/security/ksecmatchlimitone
@available(iOS 2.0, macOS 10.6, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
public let kSecMatchLimitOne: CFString = "m_LimitOne"

/// https://developer.apple.com/documentation/security/secitemcopymatching(_:_:)
@available(iOS 2.0, macOS 10.6, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus { -25300 }

/// https://developer.apple.com/documentation/security/secitemadd(_:_:)
@available(iOS 2.0, macOS 10.6, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus { 0 }

/// https://developer.apple.com/documentation/security/secitemdelete(_:)
@available(iOS 2.0, macOS 10.6, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
public func SecItemDelete(_ query: CFDictionary) -> OSStatus { 0 }
