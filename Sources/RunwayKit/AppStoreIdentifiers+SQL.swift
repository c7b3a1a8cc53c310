import AppleFormats
import RunwayStore

// App Store identifiers are bound as the text Apple sent.
extension TransactionId: SQLBindable {
    public var sqlValue: SQLValue { .text(rawValue) }
}

extension AppTransactionId: SQLBindable {
    public var sqlValue: SQLValue { .text(rawValue) }
}
