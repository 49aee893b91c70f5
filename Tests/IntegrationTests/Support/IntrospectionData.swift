/// Introspection XML (the D-Bus specification's "Introspection Data Format")
/// read back into what a caller relies on: each interface's methods with
/// their arguments (direction, type, name, in order), signals, properties
/// (type, access) and every annotation. What carries no meaning is dropped:
/// the prolog, the DOCTYPE, comments, whitespace, child `<node>`s, and the
/// order of members. An element or attribute the format does not have is an
/// error, so a typo in a reviewed file is named instead of read as nothing.
struct IntrospectionData: Equatable {
    /// Interface name → member key (`method Wait`, `signal ResumeRequested`,
    /// `property Status`) → its description, one line per argument, attribute or annotation.
    var interfaces: [String: [String: [String]]] = [:]

    /// The interfaces every object carries, which the reviewed file leaves out.
    static func isStandard(_ interface: String) -> Bool { interface.hasPrefix("org.freedesktop.DBus.") }

    /// Reads `xml`, keeping only the interfaces `keep` accepts.
    init(xml: String, keep: (String) -> Bool = { !IntrospectionData.isStandard($0) }) throws {
        var reader = XMLReader(xml)
        let root = try reader.document()
        guard root.name == "node" else { throw XMLReader.Failure("the root element is <\(root.name)>, not <node>") }
        for element in root.children {
            switch element.name {
            case "node": continue
            case "interface":
                let name = try element.attribute("name")
                guard keep(name) else { continue }
                guard interfaces[name] == nil else { throw XMLReader.Failure("interface \(name) appears twice") }
                interfaces[name] = try Self.members(of: element)
            default: throw XMLReader.Failure("<\(element.name)> inside <node>")
            }
        }
    }

    private static func members(of interface: XMLReader.Element) throws -> [String: [String]] {
        var members: [String: [String]] = [:]
        for element in interface.children {
            let name = try element.attribute("name")
            let key = element.name + " " + name
            var lines: [String] = []
            switch element.name {
            case "method":
                try element.allow(["name"])
                var inputs: [String] = []
                var outputs: [String] = []
                for arg in element.children where arg.name == "arg" {
                    try arg.allow(["name", "type", "direction"])
                    let direction = arg.attributes["direction"] ?? "in"
                    let line = "\(direction) \(try arg.attribute("type")) \(arg.attributes["name"] ?? "")"
                    switch direction {
                    case "in": inputs.append(line)
                    case "out": outputs.append(line)
                    default: throw XMLReader.Failure("\(key): direction \"\(direction)\"")
                    }
                }
                // Ins and outs keep their own order; how they interleave in the XML says nothing.
                lines = inputs + outputs
            case "signal":
                try element.allow(["name"])
                for arg in element.children where arg.name == "arg" {
                    try arg.allow(["name", "type", "direction"])
                    guard (arg.attributes["direction"] ?? "out") == "out" else {
                        throw XMLReader.Failure("\(key): a signal's arguments are out")
                    }
                    lines.append("\(try arg.attribute("type")) \(arg.attributes["name"] ?? "")")
                }
            case "property":
                try element.allow(["name", "type", "access"])
                lines = ["type \(try element.attribute("type"))", "access \(try element.attribute("access"))"]
            case "annotation":
                try element.allow(["name", "value"])
                lines = ["value \(try element.attribute("value"))"]
            default:
                throw XMLReader.Failure("<\(element.name)> inside <interface>")
            }
            for child in element.children {
                switch child.name {
                case "arg" where element.name != "property": continue
                case "annotation":
                    try child.allow(["name", "value"])
                    lines.append("annotation \(try child.attribute("name"))=\(try child.attribute("value"))")
                default: throw XMLReader.Failure("<\(child.name)> inside \(key)")
                }
            }
            guard members[key] == nil else { throw XMLReader.Failure("\(key) appears twice") }
            members[key] = lines
        }
        return members
    }

    /// Both objects' interfaces as one description (an interface on both is an error).
    func merging(_ other: IntrospectionData) throws -> IntrospectionData {
        var merged = self
        for (name, members) in other.interfaces {
            guard merged.interfaces[name] == nil else { throw XMLReader.Failure("interface \(name) is on both") }
            merged.interfaces[name] = members
        }
        return merged
    }

    /// Every difference between this description (`mine`) and `other` (`theirs`), each naming
    /// the interface and member and saying which side has what; empty when they agree.
    func differences(from other: IntrospectionData, mine: String, theirs: String) -> [String] {
        var found: [String] = []
        for name in Set(interfaces.keys).union(other.interfaces.keys).sorted() {
            guard let a = interfaces[name] else {
                found.append("interface \(name): \(theirs) has it, \(mine) does not")
                continue
            }
            guard let b = other.interfaces[name] else {
                found.append("interface \(name): \(mine) has it, \(theirs) does not")
                continue
            }
            for key in Set(a.keys).union(b.keys).sorted() {
                switch (a[key], b[key]) {
                case (nil, _): found.append("\(name): \(key) is in \(theirs), not in \(mine)")
                case (_, nil): found.append("\(name): \(key) is in \(mine), not in \(theirs)")
                case (let x?, let y?) where x != y:
                    found.append(
                        "\(name): \(key) differs: \(mine) has [\(x.joined(separator: "; "))], "
                            + "\(theirs) has [\(y.joined(separator: "; "))]")
                default: continue
                }
            }
        }
        return found
    }
}
