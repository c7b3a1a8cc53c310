import Foundation
@testable import LinkRunway
import Synchronization
import Testing

/// Conversion values: the schema, rule choice, the never-lower rule, ordering, windows and re-engagements.
@Suite("Conversion values")
struct ConversionTests {
    static let rules = #"""
        [{"type":"INSTALL","fine":0,"coarse":"low"},
         {"type":"SIGNUP","fine":10,"coarse":"medium"},
         {"type":"CUSTOM","name":"level_10","fine":20},
         {"type":"CUSTOM","fine":15,"coarse":"low"},
         {"type":"PURCHASE","minAmount":0,"fine":30,"coarse":"medium"},
         {"type":"PURCHASE","minAmount":4999,"fine":50,"coarse":"high","lockWindow":true},
         {"type":"OPEN","fine":60}]
        """#

    struct Setup {
        let runway: LinkRunway
        let server: StubServer
        let clock: TestClock
    }

    /// A consented LinkRunway whose schema has `rules`, configured.
    static func setUp(rules: String = Self.rules, laterWindows: String = "[]", frameworks: [any ConversionFramework],
                      clock: TestClock = TestClock()) async throws -> Setup {
        let server = StubServer { request in
            request.path.hasPrefix("/v1/mobile/config/") ? Fixture.config(rules: rules, laterWindows: laterWindows) : Fixture.standard(request)
        }
        let runway = Fixture.runway(server, clock: clock, frameworks: frameworks)
        await runway.setConsent(true)
        #expect(try await runway.configureConversions(appId: "app_1") == 3)
        return Setup(runway: runway, server: server, clock: clock)
    }

    // MARK: The schema

    @Test("configureConversions GETs /v1/mobile/config/<appId> at most once a day and stores the schema, which a later launch uses")
    func fetchAndStore() async throws {
        let suite = Fixture.suite()
        let server = StubServer { request in
            request.path.hasPrefix("/v1/mobile/config/") ? Fixture.config(rules: Self.rules) : Fixture.standard(request)
        }
        let runway = Fixture.runway(server, suite: suite)
        await runway.setConsent(true)
        #expect(try await runway.configureConversions(appId: "app_42") == 3)
        #expect(server.paths() == ["GET /v1/mobile/config/app_42"])
        #expect(await runway.storage.string(.schema)?.contains("level_10") == true)
        #expect(try await runway.configureConversions(appId: "app_42") == 3)
        let log = ConversionLog()
        let clock = TestClock()
        let later = Fixture.runway(server, clock: clock, frameworks: log.frameworks, suite: suite)
        #expect(await later.recordConversion(event: "SIGNUP")?.fine == 10)
        _ = try await later.configureConversions(appId: "app_42")
        #expect(server.requests.count == 1, "the same day: no second fetch")
        clock.advance(86_400)
        _ = try await later.configureConversions(appId: "app_42")
        _ = try await later.configureConversions(appId: "app_42")
        #expect(server.paths() == ["GET /v1/mobile/config/app_42", "GET /v1/mobile/config/app_42"])
    }

    @Test("a schema from an earlier day keeps working while a refresh fails")
    func earlierSchemaKept() async throws {
        let log = ConversionLog()
        let setup = try await Self.setUp(frameworks: log.frameworks)
        setup.clock.advance(86_400)
        setup.server.answer { _ in .init(status: 500, json: "{}") }
        #expect(try await setup.runway.configureConversions(appId: "app_1") == 3)
        #expect(setup.server.requests.count == 4, "the refresh was tried")
        #expect(await setup.runway.recordConversion(event: "SIGNUP") == ConversionUpdate(fine: 10, coarse: .medium, lockWindow: false,
                                                                                     frameworks: ["skadnetwork", "adattributionkit"]))
    }

    @Test("after a failed fetch an event within five minutes does not fetch; one after five minutes does and sets the value (offline first launch)")
    func refetchAfterFiveMinutes() async throws {
        let offline = Mutex(true)
        let log = ConversionLog()
        let clock = TestClock()
        let server = StubServer { request in
            if request.path.hasPrefix("/v1/mobile/config/") {
                return offline.withLock { $0 } ? .failure(.notConnectedToInternet) : Fixture.config(rules: Self.rules)
            }
            return Fixture.standard(request)
        }
        let runway = Fixture.runway(server, clock: clock, frameworks: log.frameworks)
        await runway.setConsent(true)
        let error = await thrown { _ = try await runway.configureConversions(appId: "app_1") }
        #expect((error as? URLError)?.code == .notConnectedToInternet)
        offline.withLock { $0 = false }
        clock.advance(60)
        try await runway.install()
        await runway.conversionQueue?.value
        #expect(server.requests(to: "/v1/mobile/config/app_1").count == 3, "within five minutes: no fetch")
        #expect(log.all.isEmpty)
        clock.advance(241)
        try await runway.track(type: "SIGNUP")
        await runway.conversionQueue?.value
        #expect(server.requests(to: "/v1/mobile/config/app_1").count == 4)
        #expect(log.all.map(\.fine) == [10, 10])
    }

    // MARK: Choosing a rule

    @Test("after a successful track the event's type and name are matched against the rules")
    func trackMatchesRules() async throws {
        let log = ConversionLog()
        let setup = try await Self.setUp(frameworks: log.frameworks)
        try await setup.runway.track(type: "CUSTOM", name: "level_10")
        await setup.runway.conversionQueue?.value
        #expect(log.all == [FakeFramework.Call(framework: "skadnetwork", fine: 20, coarse: nil, lock: false, tag: nil),
                            FakeFramework.Call(framework: "adattributionkit", fine: 20, coarse: nil, lock: false, tag: nil)])
        setup.server.answer { _ in .init(status: 400, json: "{}") }
        _ = try? await setup.runway.track(type: "OPEN")
        await setup.runway.conversionQueue?.value
        #expect(log.all.count == 2, "a refused event updates nothing")
    }

    @Test("recordConversion matches the rules, sends nothing to the server and returns once its own update is handed over")
    func recordConversion() async throws {
        let slow = HeldFramework("skadnetwork", delay: 0.05)
        let setup = try await Self.setUp(frameworks: [slow])
        let update = await setup.runway.recordConversion(event: "PURCHASE", amount: 100)
        #expect(update == ConversionUpdate(fine: 30, coarse: .medium, lockWindow: false, frameworks: ["skadnetwork"]))
        #expect(slow.calls == [FakeFramework.Call(framework: "skadnetwork", fine: 30, coarse: .medium, lock: false, tag: nil)])
        #expect(setup.server.requests.count == 1, "only the schema fetch")
    }

    @Test("a rule applies only when its type is the event's, its name (if any) is the event's, and its minAmount is not above the amount")
    func ruleApplies() async throws {
        let rules = #"[{"type":"SIGNUP","name":"email","fine":12},{"type":"PURCHASE","minAmount":1000,"fine":40}]"#
        let setup = try await Self.setUp(rules: rules, frameworks: ConversionLog().frameworks)
        let runway = setup.runway
        #expect(await runway.recordConversion(event: "LOGIN", name: "email") == nil, "another type")
        #expect(await runway.recordConversion(event: "SIGNUP") == nil, "a named rule needs the name")
        #expect(await runway.recordConversion(event: "SIGNUP", name: "apple") == nil, "another name")
        #expect(await runway.recordConversion(event: "PURCHASE", amount: 999) == nil, "minAmount above the amount")
        #expect(await runway.recordConversion(event: "PURCHASE") == nil, "no amount is zero")
        #expect(await runway.recordConversion(event: "SIGNUP", name: "email")?.fine == 12)
        #expect(await runway.recordConversion(event: "PURCHASE", amount: 1000)?.fine == 40, "minAmount equal to the amount")
    }

    @Test("among applying rules the highest minAmount wins")
    func highestMinAmount() async throws {
        let rules = #"[{"type":"PURCHASE","minAmount":5000,"fine":20},{"type":"PURCHASE","minAmount":100,"fine":40},{"type":"PURCHASE","fine":50}]"#
        let setup = try await Self.setUp(rules: rules, frameworks: ConversionLog().frameworks)
        #expect(await setup.runway.recordConversion(event: "PURCHASE", amount: 6000)?.fine == 20)
    }

    @Test("a tie on minAmount goes to the named rule")
    func tieNamed() async throws {
        let rules = #"[{"type":"PURCHASE","minAmount":100,"fine":40},{"type":"PURCHASE","minAmount":100,"name":"annual","fine":30}]"#
        let setup = try await Self.setUp(rules: rules, frameworks: ConversionLog().frameworks)
        #expect(await setup.runway.recordConversion(event: "PURCHASE", name: "annual", amount: 100)?.fine == 30)
    }

    @Test("a tie on minAmount and name goes to the higher fine value")
    func tieHigherFine() async throws {
        let rules = #"[{"type":"SIGNUP","fine":11,"coarse":"high"},{"type":"SIGNUP","fine":17,"coarse":"low"},{"type":"SIGNUP","fine":13}]"#
        let setup = try await Self.setUp(rules: rules, frameworks: ConversionLog().frameworks)
        let update = await setup.runway.recordConversion(event: "SIGNUP")
        #expect(update?.fine == 17 && update?.coarse == .low)
    }

    @Test("a complete tie goes to the earlier rule")
    func tieEarlier() async throws {
        let rules = #"[{"type":"SIGNUP","fine":9,"coarse":"medium"},{"type":"SIGNUP","fine":9,"coarse":"high","lockWindow":true}]"#
        let setup = try await Self.setUp(rules: rules, frameworks: ConversionLog().frameworks)
        #expect(await setup.runway.recordConversion(event: "SIGNUP") == ConversionUpdate(fine: 9, coarse: .medium, lockWindow: false,
                                                                                     frameworks: ["skadnetwork", "adattributionkit"]))
    }

    @Test("rules the SDK cannot read (fine outside 0–63, an unknown coarse value) are skipped")
    func unreadableRulesSkipped() async throws {
        let rules = #"""
            [{"type":"LOGIN","fine":64},{"type":"LOGOUT","fine":-1},{"type":"OPEN","fine":40,"coarse":"enormous"},
             {"type":"SIGNUP","fine":5},{"type":"SIGNUP","fine":63,"coarse":"extreme"},{"type":"SIGNUP","fine":64}]
            """#
        let log = ConversionLog()
        let setup = try await Self.setUp(rules: rules, frameworks: log.frameworks)
        #expect(await setup.runway.recordConversion(event: "LOGIN") == nil)
        #expect(await setup.runway.recordConversion(event: "LOGOUT") == nil)
        #expect(await setup.runway.recordConversion(event: "OPEN") == nil)
        #expect(await setup.runway.recordConversion(event: "SIGNUP")?.fine == 5, "the readable rule, not the higher unreadable ones")
        #expect(log.all.map(\.fine) == [5, 5])
    }

    // MARK: Handing values over

    @Test("never lower: a rule below the highest value sent is dropped; an equal one is sent again")
    func neverLower() async throws {
        let log = ConversionLog()
        let setup = try await Self.setUp(frameworks: log.frameworks)
        #expect(await setup.runway.recordConversion(event: "SIGNUP")?.fine == 10)
        #expect(await setup.runway.recordConversion(event: "INSTALL") == nil)
        #expect(await setup.runway.recordConversion(event: "SIGNUP")?.fine == 10)
        #expect(log.all.map(\.fine) == [10, 10, 10, 10])
        #expect(await setup.runway.storage.int(.highestFine) == 10)
    }

    @Test("lockWindow is passed only when the chosen rule sets it")
    func lockOnlyWhenSet() async throws {
        let log = ConversionLog()
        let setup = try await Self.setUp(frameworks: log.frameworks)
        _ = await setup.runway.recordConversion(event: "PURCHASE", amount: 100)
        _ = await setup.runway.recordConversion(event: "PURCHASE", amount: 4999)
        #expect(log.all.map(\.fine) == [30, 30, 50, 50])
        #expect(log.all.map(\.lock) == [false, false, true, true])
    }

    @Test("a rule without a coarse value reaches the frameworks with coarse nil")
    func fineOnly() async throws {
        let log = ConversionLog()
        let setup = try await Self.setUp(frameworks: log.frameworks)
        let update = await setup.runway.recordConversion(event: "OPEN")
        #expect(update == ConversionUpdate(fine: 60, coarse: nil, lockWindow: false, frameworks: ["skadnetwork", "adattributionkit"]))
        #expect(log.all.map(\.coarse) == [nil, nil])
    }

    @Test("updates reach the frameworks one at a time, in the order they were requested")
    func oneAtATime() async throws {
        let skan = HeldFramework("skadnetwork", delay: 0.03), aak = HeldFramework("adattributionkit", delay: 0.03)
        let setup = try await Self.setUp(frameworks: [skan, aak])
        try await setup.runway.track(type: "INSTALL")
        try await setup.runway.track(type: "SIGNUP")
        try await setup.runway.track(type: "CUSTOM", name: "level_10")
        await setup.runway.conversionQueue?.value
        #expect(skan.calls.map(\.fine) == [0, 10, 20] && aak.calls.map(\.fine) == [0, 10, 20])
        #expect(skan.mostAtOnce.withLock { $0 } == 1 && aak.mostAtOnce.withLock { $0 } == 1)
    }

    @Test("track returns without waiting for the conversion update")
    func trackDoesNotWait() async throws {
        let held = HeldFramework("skadnetwork", open: false)
        let setup = try await Self.setUp(frameworks: [held])
        // The gate stays shut until track has returned: had track waited for the update, it could only have returned
        // once the framework gave up holding it (ten seconds) and recorded the call.
        let receipt = try await setup.runway.track(type: "SIGNUP", eventId: "evt-1")
        #expect(receipt?.eventId == "evt-1")
        #expect(held.calls.isEmpty)
        held.open()
        await setup.runway.conversionQueue?.value
        #expect(held.calls.map(\.fine) == [10])
    }

    @Test("a framework that never answers is given up after appleCallTimeout: the update goes to the others, the queue goes on")
    func hungFrameworkLeftBehind() async throws {
        let hung = HeldFramework("skadnetwork", open: false), other = FakeFramework("adattributionkit")
        let server = StubServer { request in
            request.path.hasPrefix("/v1/mobile/config/") ? Fixture.config(rules: Self.rules) : Fixture.standard(request)
        }
        let runway = Fixture.runway(server, frameworks: [hung, other], appleCallTimeout: 1)
        await runway.setConsent(true)
        _ = try await runway.configureConversions(appId: "app_1")
        let first = await runway.recordConversion(event: "SIGNUP")
        #expect(first?.frameworks == ["adattributionkit"], "the hung framework did not take it in time")
        let second = await runway.recordConversion(event: "PURCHASE", amount: 100)
        #expect(second?.frameworks == ["adattributionkit"])
        #expect(other.calls.map(\.fine) == [10, 30], "the queue did not wait for the hung call")
        #expect(hung.started.withLock { $0 } == 2 && hung.calls.isEmpty)
        hung.open()
    }

    @Test("at the first consent the installation registers its postbacks with the lowest value, once, ahead of every rule's update")
    func registeredAtFirstLaunch() async throws {
        let log = ConversionLog()
        let suite = Fixture.suite()
        let server = StubServer { request in
            request.path.hasPrefix("/v1/mobile/config/") ? Fixture.config(rules: Self.rules) : Fixture.standard(request)
        }
        let runway = Fixture.runway(server, postbackRegistered: false, frameworks: log.frameworks, suite: suite)
        await runway.conversionQueue?.value
        #expect(log.all.isEmpty, "consent gates the registration")
        await runway.setConsent(true)
        await runway.conversionQueue?.value
        let lowest = ["skadnetwork", "adattributionkit"].map { FakeFramework.Call(framework: $0, fine: 0, coarse: .low, lock: false, tag: nil) }
        #expect(log.all == lowest && server.requests.isEmpty, "no rule, no schema, nothing sent to the server")
        _ = try await runway.configureConversions(appId: "app_1")
        #expect(await runway.recordConversion(event: "SIGNUP")?.fine == 10)
        await runway.setConsent(false)
        await runway.setConsent(true)
        await Fixture.runway(server, postbackRegistered: false, frameworks: log.frameworks, suite: suite).conversionQueue?.value
        #expect(log.all.dropFirst(2).map(\.fine) == [10, 10], "registered once for the installation, through withdrawal and launches")
    }

    @Test("an installation an earlier SDK left with consent and no value registers at its next launch; one with a value sent does not")
    func registeredAfterUpdate() async throws {
        let server = StubServer(Fixture.standard)
        let suite = Fixture.suite()
        let earlier = SDKStorage(suiteName: suite, endpoint: server.endpoint, publishableKey: Fixture.key)
        earlier.set(true, .consent)
        earlier.set("1d8f1d44-0f7e-4b5f-9a57-3d2f0c1e5a11", .installId)
        let log = ConversionLog()
        let runway = Fixture.runway(server, postbackRegistered: false, frameworks: log.frameworks, suite: suite)
        for _ in 0..<500 where log.all.count < 2 { try await Task.sleep(nanoseconds: 2_000_000) }
        #expect(log.all.map(\.fine) == [0, 0] && log.all.allSatisfy { $0.coarse == .low })
        await runway.conversionQueue?.value
        #expect(await runway.storage.bool(.postbackRegistered))

        let valued = Fixture.suite()
        let before = SDKStorage(suiteName: valued, endpoint: server.endpoint, publishableKey: Fixture.key)
        before.set(true, .consent)
        before.set(20, .highestFine)
        let untouched = ConversionLog()
        let other = Fixture.runway(server, postbackRegistered: false, frameworks: untouched.frameworks, suite: valued)
        await other.setConsent(true)
        await other.conversionQueue?.value
        #expect(untouched.all.isEmpty, "a postback exists already; 0 would only repeat a lower value")
    }

    @Test("withdrawal drops the queued updates and the high-water mark")
    func withdrawalDropsQueue() async throws {
        let held = HeldFramework("skadnetwork", open: false)
        let setup = try await Self.setUp(frameworks: [held])
        try await setup.runway.track(type: "SIGNUP")
        try await setup.runway.track(type: "OPEN")
        for _ in 0..<1000 where held.started.withLock({ $0 }) == 0 { try await Task.sleep(nanoseconds: 2_000_000) }
        try #require(held.started.withLock { $0 } == 1)
        let queue = await setup.runway.conversionQueue
        await setup.runway.setConsent(false)
        held.open()
        await queue?.value
        #expect(held.calls.map(\.fine) == [10], "the update in Apple's hands finishes; the queued OPEN (60) is dropped")
        await setup.runway.setConsent(true)
        #expect(await setup.runway.storage.int(.highestFine) == nil)
    }

    @Test("SKAdNetwork goes first and AdAttributionKit last; a locking rule goes to AdAttributionKit first")
    func callOrder() async throws {
        let log = ConversionLog()
        let setup = try await Self.setUp(frameworks: log.frameworks)
        let plain = await setup.runway.recordConversion(event: "SIGNUP")
        #expect(log.all.map(\.framework) == ["skadnetwork", "adattributionkit"])
        #expect(plain?.frameworks == ["skadnetwork", "adattributionkit"])
        let locked = await setup.runway.recordConversion(event: "PURCHASE", amount: 5000)
        #expect(log.all.dropFirst(2).map(\.framework) == ["adattributionkit", "skadnetwork"])
        #expect(locked?.frameworks == ["adattributionkit", "skadnetwork"])
    }

    @Test("ConversionUpdate.frameworks lists the frameworks that accepted, in call order, and omits one that refused")
    func acceptingFrameworks() async throws {
        let skan = FakeFramework("skadnetwork", refuses: true), aak = FakeFramework("adattributionkit")
        let setup = try await Self.setUp(frameworks: [skan, aak])
        let update = await setup.runway.recordConversion(event: "SIGNUP")
        #expect(update == ConversionUpdate(fine: 10, coarse: .medium, lockWindow: false, frameworks: ["adattributionkit"]))
        #expect(aak.calls.count == 1 && skan.calls.isEmpty)
    }

    @Test("in windows 2 (days 2–7) and 3 (days 7–35) the window's coarse rule decides and the fine value stays")
    func laterWindows() async throws {
        let windows = #"""
            [{"window":2,"rules":[{"type":"SUBSCRIPTION","coarse":"medium"}]},
             {"window":3,"rules":[{"type":"SUBSCRIPTION","coarse":"high","lockWindow":true}]}]
            """#
        let log = ConversionLog()
        let setup = try await Self.setUp(laterWindows: windows, frameworks: log.frameworks)
        _ = await setup.runway.recordConversion(event: "PURCHASE", amount: 100)
        setup.clock.advance(2 * 86_400 + 60)
        #expect(await setup.runway.recordConversion(event: "SUBSCRIPTION") == ConversionUpdate(fine: 30, coarse: .medium, lockWindow: false,
                                                                                           frameworks: ["skadnetwork", "adattributionkit"]))
        setup.clock.advance(5 * 86_400)
        #expect(await setup.runway.recordConversion(event: "SUBSCRIPTION") == ConversionUpdate(fine: 30, coarse: .high, lockWindow: true,
                                                                                           frameworks: ["adattributionkit", "skadnetwork"]))
        #expect(log.all.map(\.fine) == [30, 30, 30, 30, 30, 30])
    }

    @Test("windows count from the first launch, not from consent given later, and through a withdrawal and a new consent")
    func windowsFromFirstLaunch() async throws {
        let windows = #"""
            [{"window":2,"rules":[{"type":"SUBSCRIPTION","coarse":"medium"}]},
             {"window":3,"rules":[{"type":"SUBSCRIPTION","coarse":"high"}]}]
            """#
        let server = StubServer { request in
            request.path.hasPrefix("/v1/mobile/config/") ? Fixture.config(rules: Self.rules, laterWindows: windows) : Fixture.standard(request)
        }
        let clock = TestClock(), suite = Fixture.suite()
        let runway = Fixture.runway(server, clock: clock, frameworks: ConversionLog().frameworks, suite: suite)
        // Consent three days after the first launch: the second window already.
        clock.advance(3 * 86_400)
        await runway.setConsent(true)
        #expect(try await runway.configureConversions(appId: "app_1") == 3)
        #expect(await runway.recordConversion(event: "SUBSCRIPTION")?.coarse == .medium)
        // Withdrawn and given again on day 8, in a later launch: the third window, from the same first launch.
        await runway.setConsent(false)
        clock.advance(5 * 86_400)
        let later = Fixture.runway(server, clock: clock, frameworks: ConversionLog().frameworks, suite: suite)
        await later.setConsent(true)
        #expect(try await later.configureConversions(appId: "app_1") == 3)
        #expect(await later.recordConversion(event: "SUBSCRIPTION")?.coarse == .high)
        #expect(await later.storage.double(.firstLaunchAt) == 1_790_000_000)
        #expect(server.requests.allSatisfy { !String(decoding: $0.raw ?? Data(), as: UTF8.self).contains("1790000000") }, "the first launch's time is never sent")
    }

    // MARK: Re-engagement

    static let reengagementURL = URL(string: "https://go.example/r?AdAttributionKitReengagementOpen=t-1")!

    @Test("after a re-engagement open the install update goes untagged to all frameworks, the tagged update only to those taking re-engagements")
    func reengagementUpdates() async throws {
        let log = ConversionLog(reengagement: true)
        let setup = try await Self.setUp(frameworks: log.frameworks)
        _ = try await setup.runway.open(Self.reengagementURL)
        let update = await setup.runway.recordConversion(event: "SIGNUP")
        #expect(log.all == [FakeFramework.Call(framework: "skadnetwork", fine: 10, coarse: .medium, lock: false, tag: nil),
                            FakeFramework.Call(framework: "adattributionkit", fine: 10, coarse: .medium, lock: false, tag: nil),
                            FakeFramework.Call(framework: "adattributionkit", fine: 10, coarse: .medium, lock: false, tag: "t-1")])
        #expect(update == ConversionUpdate(fine: 10, coarse: .medium, lockWindow: false, frameworks: ["skadnetwork", "adattributionkit"],
                                           reengagement: ReengagementUpdate(conversionTag: "t-1", fine: 10, coarse: .medium, lockWindow: false,
                                                                            frameworks: ["adattributionkit"])))
    }

    @Test("a re-engagement has its own high-water mark: a value below the install's mark is still sent to it")
    func reengagementOwnMark() async throws {
        let log = ConversionLog(reengagement: true)
        let setup = try await Self.setUp(frameworks: log.frameworks)
        _ = await setup.runway.recordConversion(event: "PURCHASE", amount: 100)
        _ = try await setup.runway.open(Self.reengagementURL)
        let update = await setup.runway.recordConversion(event: "SIGNUP")
        #expect(log.all.dropFirst(2) == [FakeFramework.Call(framework: "adattributionkit", fine: 10, coarse: .medium, lock: false, tag: "t-1")])
        #expect(update?.frameworks == [] && update?.reengagement?.fine == 10 && update?.reengagement?.frameworks == ["adattributionkit"])
        #expect(await setup.runway.recordConversion(event: "INSTALL") == nil, "below both marks")
        #expect(log.all.count == 3)
    }

    @Test("a re-engagement takes updates through Apple's three windows from its open: days 3–7 and 8–35 by the later rules, none after 35 days")
    func reengagementWindows() async throws {
        let later = #"[{"window":2,"rules":[{"type":"SUBSCRIPTION","coarse":"medium"}]},{"window":3,"rules":[{"type":"SUBSCRIPTION","coarse":"high"}]}]"#
        let log = ConversionLog(reengagement: true)
        let setup = try await Self.setUp(laterWindows: later, frameworks: log.frameworks)
        setup.clock.advance(40 * 86_400)
        _ = try await setup.runway.open(Self.reengagementURL)
        setup.clock.advance(2 * 86_400 - 60)
        #expect(await setup.runway.recordConversion(event: "SIGNUP")?.reengagement == ReengagementUpdate(
            conversionTag: "t-1", fine: 10, coarse: .medium, lockWindow: false, frameworks: ["adattributionkit"]))
        // Day 3 after the open: its second window; the fine value stays, the window's rule decides the coarse value.
        setup.clock.advance(86_400)
        let second = await setup.runway.recordConversion(event: "SUBSCRIPTION")
        #expect(second?.reengagement?.fine == 10 && second?.reengagement?.coarse == .medium)
        setup.clock.advance(10 * 86_400)
        #expect(await setup.runway.recordConversion(event: "SUBSCRIPTION")?.reengagement?.coarse == .high)
        setup.clock.advance(23 * 86_400)
        let late = await setup.runway.recordConversion(event: "SIGNUP")
        #expect(late?.reengagement == nil, "35 days after the open")
        #expect(log.all.filter { $0.tag != nil }.count == 3)
    }

    @Test("35 days after the first launch no install update is made (Apple takes none); a re-engagement's still goes")
    func installWindowsClose() async throws {
        let log = ConversionLog(reengagement: true)
        let setup = try await Self.setUp(frameworks: log.frameworks)
        setup.clock.advance(35 * 86_400 - 60)
        #expect(await setup.runway.recordConversion(event: "SIGNUP")?.frameworks == ["skadnetwork", "adattributionkit"])
        setup.clock.advance(120)
        #expect(await setup.runway.recordConversion(event: "PURCHASE", amount: 100) == nil)
        _ = try await setup.runway.open(Self.reengagementURL)
        let update = await setup.runway.recordConversion(event: "PURCHASE", amount: 100)
        #expect(update?.frameworks == [] && update?.reengagement?.frameworks == ["adattributionkit"])
        #expect(log.all.count == 3 && log.all.last?.tag == "t-1")
    }

    @Test("an open naming AdAttributionKitReengagementOpen with no tag (iOS 18.0–18.3) still starts a re-engagement, with an empty tag")
    func reengagementWithoutTag() async throws {
        let log = ConversionLog(reengagement: true)
        let setup = try await Self.setUp(frameworks: log.frameworks)
        _ = try await setup.runway.open(URL(string: "https://go.example/r?AdAttributionKitReengagementOpen")!)
        let update = await setup.runway.recordConversion(event: "SIGNUP")
        #expect(update?.reengagement?.conversionTag == "" && update?.reengagement?.frameworks == ["adattributionkit"])
        #expect(log.all.last == FakeFramework.Call(framework: "adattributionkit", fine: 10, coarse: .medium, lock: false, tag: ""))
    }

    @Test("SKAdNetwork never receives a conversion tag")
    func skadNetworkNeverTagged() async throws {
        let log = ConversionLog(reengagement: true)
        let setup = try await Self.setUp(frameworks: log.frameworks)
        _ = try await setup.runway.open(Self.reengagementURL)
        _ = await setup.runway.recordConversion(event: "SIGNUP")
        _ = await setup.runway.recordConversion(event: "PURCHASE", amount: 5000)
        try await setup.runway.track(type: "OPEN")
        await setup.runway.conversionQueue?.value
        let skan = log.all.filter { $0.framework == "skadnetwork" }
        #expect(skan.count == 3 && skan.allSatisfy { $0.tag == nil })
        #expect(log.all.filter { $0.tag == "t-1" }.count == 3)
    }

    @Test("without conversion frameworks (tvOS) updates are a no-op")
    func noFrameworks() async throws {
        let server = StubServer { request in
            request.path.hasPrefix("/v1/mobile/config/") ? Fixture.config(rules: Self.rules) : Fixture.standard(request)
        }
        let runway = Fixture.runway(server, platform: "tvos")
        await runway.setConsent(true)
        _ = try await runway.configureConversions(appId: "app_1")
        #expect(await runway.recordConversion(event: "SIGNUP") == nil)
        #expect(try await runway.track(type: "SIGNUP", eventId: "evt-1")?.status == "stored")
        #expect(await runway.conversionQueue == nil)
        #expect(await runway.storage.int(.highestFine) == nil)
        #expect(server.paths() == ["GET /v1/mobile/config/app_1", "POST /v1/events"])
    }
}
