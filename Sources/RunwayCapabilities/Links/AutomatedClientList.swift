import RunwayKit

/// The built-in patterns and the operator's, searched on every visit of a link.
final class AutomatedClientList: SharedObject {
    let patterns: [AutomatedClientPattern]
    /// The patterns' tokens as bytes, for `ClientClass`.
    let needles: [ClientClass.Needle]

    init(_ services: ServerServices) {
        patterns = AutomatedClients.builtIn.map(\.pattern) + services.extraAutomatedClients
        needles = ClientClass.needles(patterns)
    }

    /// The kind of a token `ClientClass` found, `.preview` for one no longer listed.
    func kind(of token: String) -> AutomatedClientPattern.Kind {
        patterns.first { $0.token == token }?.kind ?? .preview
    }
}

extension ServerServices {
    var automatedClients: AutomatedClientList { shared(AutomatedClientList.self) }
}
