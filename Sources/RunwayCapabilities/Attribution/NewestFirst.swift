import LinkRunwayAPI
import RunwayHTTP
import RunwayKit
import RunwayStore

/// A cursor for lists read newest first by a time, an app and an id (`time~app~id`): the next page starts below the
/// last row shown, so pages stay stable while rows arrive.
struct NewestFirst {
    let time: String, app: String, id: String

    /// The condition that keeps rows after `cursor`, or nothing without one.
    func after(_ cursor: String?) throws -> SQL {
        guard let cursor else { return "" }
        let parts = cursor.split(separator: "~", maxSplits: 2).map(String.init)
        guard parts.count == 3, let time = Int64(parts[0]) else {
            throw RequestError.invalidQuery("cursor is not one this list gave", field: "cursor")
        }
        return """
             AND (\(raw: self.time) < \(time) OR (\(raw: self.time) = \(time) AND (\(raw: app) < \(parts[1]) \
            OR (\(raw: app) = \(parts[1]) AND \(raw: id) < \(parts[2])))))
            """
    }

    var order: SQL { " ORDER BY \(raw: time) DESC, \(raw: app) DESC, \(raw: id) DESC" }

    static func cursor(time: Int64, app: String, id: String) -> String { "\(time)~\(app)~\(id)" }

    /// The filter for each of `parameters` the request names (query parameter → column).
    static func equal(_ request: HTTPRequest, _ parameters: [(String, String)]) -> SQL {
        var filter: SQL = ""
        for (parameter, column) in parameters {
            if let value = request.queryValue(parameter) { filter = filter + " AND \(raw: column) = \(value)" }
        }
        return filter
    }

    /// `true` or `false` from the query, else nil.
    static func flag(_ request: HTTPRequest, _ name: String) throws -> Bool? {
        try request.queryValue(name).map { value in
            guard let flag = Bool(value) else { throw RequestError.invalidQuery("\(name) must be true or false", field: name) }
            return flag
        }
    }
}
