import Foundation
import LinkRunwayAPI
@testable import RunwayConsole
@testable import RunwayServer
import Testing

/// The console's import form: a pasted file, a dry run by default, the same report per row as the command line.
@Suite("Console link import")
struct ConsoleLinkImportTests {
    @Test("the links page leads to the form; a dry run reports rows and changes nothing; the import creates; a Firebase export's extras are listed")
    func importForm() async throws {
        let (server, visitor, csrf, ws) = try await ConsoleTests.signedIn()
        #expect(await visitor.send("GET", "/console/links?ws=\(ws)").bodyText.contains("/console/links/import"))
        let form = await visitor.send("GET", "/console/links/import?ws=\(ws)")
        #expect(form.status == 200 && form.bodyText.contains("name=\"dryRun\" checked"), "a first visit offers a dry run")

        let csv = "path,web,interstitial\nsummer,https://example.com/summer,on\nwinter,http://example.com/winter,\nspring,,maybe\n"
        let fields = [("csrf", csrf), ("ws", ws), ("format", "linkrunway"), ("domain", "localhost"), ("csv", csv)]
        let dry = await visitor.send("POST", "/console/links/import", form: fields + [("dryRun", "on")])
        #expect(dry.status == 200 && dry.bodyText.contains("Dry run, nothing changed: 1 created, 0 unchanged, 0 updated, 0 conflicts, 2 refused"),
                "\(dry.bodyText)")
        #expect(dry.bodyText.contains("destinations.web: must be an absolute https:// URL") && dry.bodyText.contains("interstitial must be on or off"))
        #expect(try await server.store.read { try $0.query("SELECT id FROM links").count } == 0)

        let done = await visitor.send("POST", "/console/links/import", form: fields)
        #expect(done.bodyText.contains("1 created, 0 unchanged"), "\(done.bodyText)")
        #expect(!done.bodyText.contains("name=\"dryRun\" checked"), "the form keeps what was sent")
        #expect(await visitor.send("POST", "/console/links/import", form: fields).bodyText.contains("0 created, 1 unchanged"))

        let firebase = await visitor.send("POST", "/console/links/import", form: [("csrf", csrf), ("ws", ws), ("format", "firebase"),
                                                                                  ("domain", "localhost"), ("csv", SampleExports.firebase)])
        #expect(firebase.bodyText.contains("1 created, 0 unchanged, 0 updated, 1 conflicts, 0 refused"), "\(firebase.bodyText)")
        #expect(firebase.bodyText.contains("archived in Dynamic Links") && firebase.bodyText.contains("amv=21: no minimum Android version"))
        let broken = await visitor.send("POST", "/console/links/import", form: [("csrf", csrf), ("ws", ws), ("csv", "path\n\"open")])
        #expect(broken.status == 400 && broken.bodyText.contains("never closed"))
        await server.stop()
    }
}
