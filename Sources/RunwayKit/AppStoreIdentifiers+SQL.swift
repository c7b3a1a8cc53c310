import AppleFormats
import RunwayStore

// App Store identifiers are bound as the text Apple sent.
extension TransactionId: SQLBindable {}

extension AppTransactionId: SQLBindable {}
