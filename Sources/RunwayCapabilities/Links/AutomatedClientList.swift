import RunwayKit
import Synchronization

/// The built-in patterns and the operator's, searched on every visit of a link.
final class AutomatedClientList: SharedObject {
    let patterns: [AutomatedClientPattern]
    /// The patterns' tokens, for `ClientClass`.
    let needles: ClientClass.Tokens
    /// Classes of the User-Agent strings seen lately: most visits come from a few hundred browser versions, and
    /// searching a string for every pattern costs more than the rest of a redirect's own work. Emptied when full, so
    /// strings made up by a client cannot grow it.
    private let recent = Mutex<[String: ClientClass]>([:])
    static let recentLimit = 2048

    init(_ services: ServerServices) {
        patterns = AutomatedClients.builtIn.map(\.pattern) + services.settings[LinksSettings.self].extraAutomatedClients
        needles = ClientClass.tokens(patterns)
    }

    /// The class of a User-Agent, from `recent` when it was seen lately.
    func classify(_ userAgent: String?) -> ClientClass {
        guard let userAgent, userAgent.utf8.count <= 512 else { return ClientClass(userAgent: userAgent, crawlers: needles) }
        if let known = recent.withLock({ $0[userAgent] }) { return known }
        let found = ClientClass(userAgent: userAgent, crawlers: needles)
        recent.withLock { recent in
            if recent.count >= Self.recentLimit { recent.removeAll(keepingCapacity: true) }
            recent[userAgent] = found
        }
        return found
    }

    /// The kind of a token `ClientClass` found: its pattern's, else that of a sign of a machine.
    func kind(of token: String) -> AutomatedClientPattern.Kind {
        patterns.first { $0.token == token }?.kind ?? AutomatedClients.kind(ofUnlisted: token)
    }
}

extension ServerServices {
    var automatedClients: AutomatedClientList { shared(AutomatedClientList.self) }
}
