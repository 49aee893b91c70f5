import LinkRouterAPI
import SystemKit
import Testing

/// docs/org.linkrouter.LinkRouter1.xml, the reviewed interface file that is
/// installed to `$(DATADIR)/dbus-1/interfaces/`, is what the daemon serves:
/// every method with its arguments, every signal and property with its
/// access and `EmitsChangedSignal`, both ways. The standard interfaces
/// (Peer, Introspectable, Properties) are not in the file and not compared.
@Suite("docs/org.linkrouter.LinkRouter1.xml")
struct IntrospectionXMLTests {
    static let file = "docs/org.linkrouter.LinkRouter1.xml"

    static func reviewed() throws -> IntrospectionData {
        try IntrospectionData(xml: FileSystem.readText(Paths.root + "/" + file))
    }

    @Test("the reviewed XML is what the running daemon introspects on the manager and on a session, both ways")
    func fileMatchesDaemon() throws {
        let h = try Harness()
        let (path, _) = try h.app.beginQuiet()
        let manager = try IntrospectionData(xml: h.app.introspect(API.managerPath.rawValue))
        let session = try IntrospectionData(xml: h.app.introspect(path))
        // Each interface lives on its own object, and nothing else of linkrouter's is there.
        #expect(Array(manager.interfaces.keys) == [API.managerInterface.rawValue])
        #expect(Array(session.interfaces.keys) == [API.sessionInterface.rawValue])
        let served = try manager.merging(session)
        // The reader saw every row of the interface tables: an answer misread as nothing would compare equal.
        for table in [Interfaces.manager, Interfaces.session] {
            #expect(
                served.interfaces[table.name]?.count
                    == table.methods.count + table.signals.count + table.properties.count, "\(table.name)")
        }
        let differences = try Self.reviewed().differences(from: served, mine: Self.file, theirs: "the daemon")
        #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
    }

    @Test("a member missing, added or changed on either side is named, with the side that has it")
    func differencesAreNamed() throws {
        let text = try FileSystem.readText(Paths.root + "/" + Self.file)
        let reviewed = try Self.reviewed()
        #expect(reviewed.differences(from: reviewed, mine: "a", theirs: "b").isEmpty)
        let edits: [(from: String, to: String, named: String)] = [
            (
                #"<arg name="timeout_ms" type="u" direction="in"/>"#,
                #"<arg name="timeout_ms" type="t" direction="in"/>"#,
                "org.linkrouter.LinkRouter1.Session: method Wait differs: edited has [in t timeout_ms; "
            ),
            (
                #"<method name="Logout">"#, #"<method name="LogOut">"#,
                "org.linkrouter.LinkRouter1: method LogOut is in edited, not in file"
            ),
            (
                #"<method name="Cancel"/>"#, "",
                "org.linkrouter.LinkRouter1.Session: method Cancel is in file, not in edited"
            ),
            (
                #"<property name="Status" type="s" access="read">"#
                    + "\n      <annotation name=\"org.freedesktop.DBus.Property.EmitsChangedSignal\" value=\"true\"/>",
                #"<property name="Status" type="s" access="read">"#
                    + "\n      <annotation name=\"org.freedesktop.DBus.Property.EmitsChangedSignal\" value=\"false\"/>",
                "org.linkrouter.LinkRouter1.Session: property Status differs: edited has [type s; access read; "
                    + "annotation org.freedesktop.DBus.Property.EmitsChangedSignal=false]"
            ),
            (
                #"<property name="Version" type="s" access="read">"#,
                #"<property name="Version" type="s" access="readwrite">"#,
                "org.linkrouter.LinkRouter1: property Version differs: edited has [type s; access readwrite;"
            ),
            (
                #"<arg name="resume_uri" type="s"/>"#, #"<arg name="uri" type="s"/>"#,
                "org.linkrouter.LinkRouter1.Session: signal ResumeRequested differs: edited has [s uri]"
            ),
            (
                #"<interface name="org.linkrouter.LinkRouter1.Session">"#,
                #"<interface name="org.linkrouter.LinkRouter1.Sessions">"#,
                "interface org.linkrouter.LinkRouter1.Session: file has it, edited does not"
            ),
        ]
        for edit in edits {
            #expect(text.contains(edit.from), "\(edit.from)")
            let edited = try IntrospectionData(xml: text.replacing(edit.from, with: edit.to))
            let found = edited.differences(from: reviewed, mine: "edited", theirs: "file")
            #expect(found.contains { $0.hasPrefix(edit.named) }, "\(edit.named) not in \(found)")
        }
        // A misspelt attribute is refused, not read as the default.
        #expect(throws: XMLReader.Failure.self) {
            try IntrospectionData(xml: text.replacing(#"direction="in""#, with: #"direciton="in""#))
        }
    }
}
