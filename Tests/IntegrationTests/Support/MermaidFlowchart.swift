/// A mermaid `flowchart` as nodes and edges, by label: what
/// docs/architecture.md's module graph says. It reads the forms that graph
/// uses (`A[Label]` declares an alias; `A --> B & C` and chains of `-->`)
/// and throws on any other statement, so a form it does not know cannot
/// hide an edge.
struct MermaidFlowchart {
    struct Edge: Hashable, CustomStringConvertible {
        let from: String
        let to: String
        var description: String { "\(from) --> \(to)" }
    }

    private(set) var nodes: Set<String> = []
    private(set) var edges: Set<Edge> = []

    /// The first ```mermaid block after `heading` in `markdown`.
    init(markdown: String, after heading: String) throws {
        guard let h = markdown.firstRange(of: heading),
            let open = markdown[h.upperBound...].firstRange(of: "```mermaid\n"),
            let close = markdown[open.upperBound...].firstRange(of: "```")
        else { throw PackageManifest.Failure("no ```mermaid block after \(heading)") }
        try self.init(String(markdown[open.upperBound..<close.lowerBound]))
    }

    init(_ source: String) throws {
        var lines = source.split(separator: "\n").map(\.trimmed).filter {
            !$0.isEmpty && !$0.hasPrefix("%%")
        }
        guard lines.first?.hasPrefix("flowchart") == true else {
            throw PackageManifest.Failure("the graph does not begin with flowchart")
        }
        lines.removeFirst()
        var labels: [String: String] = [:]
        var idEdges: [(String, String)] = []
        var ids: [String] = []
        for line in lines {
            var groups: [[String]] = []
            for segment in line.split(separator: "-->", omittingEmptySubsequences: false) {
                var group: [String] = []
                for ref in segment.split(separator: "&", omittingEmptySubsequences: false) {
                    let ref = ref.trimmed
                    let id = String(ref.prefix { $0.isLetter || $0.isNumber || $0 == "_" })
                    let rest = ref.dropFirst(id.count)
                    guard !id.isEmpty else { throw PackageManifest.Failure("cannot read \"\(line)\"") }
                    if !rest.isEmpty {
                        guard rest.hasPrefix("["), rest.hasSuffix("]") else {
                            throw PackageManifest.Failure("cannot read \"\(ref)\" in \"\(line)\"")
                        }
                        let label = String(rest.dropFirst().dropLast())
                        if let known = labels[id], known != label {
                            throw PackageManifest.Failure("\(id) is both \(known) and \(label)")
                        }
                        labels[id] = label
                    }
                    group.append(id)
                    ids.append(id)
                }
                groups.append(group)
            }
            for (a, b) in zip(groups, groups.dropFirst()) {
                for x in a { for y in b { idEdges.append((x, y)) } }
            }
        }
        nodes = Set(ids.map { labels[$0] ?? $0 })
        edges = Set(idEdges.map { Edge(from: labels[$0.0] ?? $0.0, to: labels[$0.1] ?? $0.1) })
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces.
    fileprivate var trimmed: String { String(String(drop { $0 == " " }.reversed()).drop { $0 == " " }.reversed()) }
}
