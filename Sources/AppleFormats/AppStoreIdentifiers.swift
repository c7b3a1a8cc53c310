/// An App Store transaction id (Apple's `transactionId`, `originalTransactionId` and `previousOriginalTransactionId`),
/// kept as sent: https://developer.apple.com/documentation/appstoreserverapi/transactionid
public struct TransactionId: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }
}

/// An app transaction id, one per Apple Account and app (since 2025), kept as sent:
/// https://developer.apple.com/documentation/appstoreserverapi/apptransactionid
public struct AppTransactionId: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }
}
