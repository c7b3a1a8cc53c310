import RunwayStore

/// The stores Apple names on an install's signed app transactions (`AppTransaction.StoreType`: consumer, education,
/// enterprise), as the install keeps them in `store_types`: upper-case words, distinct, sorted, joined by commas.
/// An install is non-consumer when its app transactions named only education or enterprise stores; one with no known
/// store, or any other store beside them (consumer, or one Apple adds), is not.
enum StoreTypes {
    static let nonConsumer: Set<String> = ["EDUCATION", "ENTERPRISE"]

    /// Whether stored store types name only education or enterprise stores.
    static func onlyNonConsumer(_ stored: String?) -> Bool {
        guard let stored, !stored.isEmpty else { return false }
        return stored.split(separator: ",").allSatisfy { nonConsumer.contains(String($0)) }
    }

    /// The values of `store_types` that name only education or enterprise stores, as an SQL list (the column is
    /// sorted and distinct, so these are all of them).
    static let nonConsumerValues: SQL = "('EDUCATION', 'EDUCATION,ENTERPRISE', 'ENTERPRISE')"
}
