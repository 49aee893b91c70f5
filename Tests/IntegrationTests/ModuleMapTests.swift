import SystemKit
import Testing

/// Package.swift is the one list of modules. The module graph in
/// docs/architecture.md, the C-import fence in scripts/check and README's
/// layout each restate part of it, and each had drifted (CSecret, CQREncode,
/// SecretKit, TerminalQR, OpenIDConnect missing here or there): these tests
/// compare every one of them with the manifest.
@Suite("One module map: Package.swift")
struct ModuleMapTests {
    static func manifest() throws -> PackageManifest {
        try PackageManifest(FileSystem.readText(Paths.root + "/Package.swift"))
    }

    @Test(
        "the manifest is read whole: its targets under Sources are the directories in Sources/, its dependencies known")
    func manifestRead() throws {
        let manifest = try Self.manifest()
        let sources = Set(manifest.sourceTargets.map(\.name))
        #expect(sources == Set(FileSystem.list(Paths.root + "/Sources")))
        #expect(manifest.sourceTargets.contains { $0.kind == .system })
        #expect(manifest.sourceTargets.contains { $0.kind == .executable })
        #expect(manifest.targets.contains { $0.kind == .test })
        let names = Set(manifest.targets.map(\.name))
        for target in manifest.targets {
            for dependency in target.dependencies {
                #expect(names.contains(dependency), "\(target.name) depends on \(dependency), which is no target")
            }
        }
        // Nothing under Sources depends on bench, fuzz or test code.
        for target in manifest.sourceTargets {
            #expect(Set(target.dependencies).isSubset(of: sources), "\(target.name)")
        }
    }

    @Test("docs/architecture.md's module graph: every target under Sources a node, exactly their dependencies as edges")
    func architectureGraph() throws {
        let manifest = try Self.manifest()
        let graph = try MermaidFlowchart(
            markdown: FileSystem.readText(Paths.root + "/docs/architecture.md"), after: "## Modules")
        let nodes = Set(manifest.sourceTargets.map(\.name))
        let edges = Set(
            manifest.sourceTargets.flatMap { t in t.dependencies.map { MermaidFlowchart.Edge(from: t.name, to: $0) } })
        #expect(graph.nodes.subtracting(nodes).sorted() == [], "nodes in the graph that are no target under Sources")
        #expect(nodes.subtracting(graph.nodes).sorted() == [], "targets under Sources missing from the graph")
        #expect(
            graph.edges.subtracting(edges).map(\.description).sorted() == [],
            "edges in the graph that Package.swift does not declare")
        #expect(
            edges.subtracting(graph.edges).map(\.description).sorted() == [],
            "dependencies Package.swift declares that the graph lacks")
    }

    @Test(
        "scripts/check's fence names every C system library with the targets under Sources that import it (one each)"
    )
    func fence() throws {
        let manifest = try Self.manifest()
        let allowed = try Self.fenceMap(FileSystem.readText(Paths.root + "/scripts/check"))
        let system = manifest.sourceTargets.filter { $0.kind == .system }.map(\.name)
        #expect(Set(allowed.keys) == Set(system), "the fence's modules are not Package.swift's system libraries")
        for module in system {
            let importers = try manifest.sourceTargets.filter { try Self.imports(module, in: $0.name) }.map(\.name)
            let wrappers = (allowed[module] ?? "").split(separator: "+").map(String.init)
            #expect(
                !importers.isEmpty && Set(importers) == Set(wrappers),
                "\(module) is imported by \(importers), the fence allows \(wrappers)")
            for wrapper in manifest.targets where importers.contains(wrapper.name) {
                #expect(wrapper.dependencies.contains(module), "\(wrapper.name) does not declare \(module)")
            }
        }
    }

    @Test("README's layout names every target under Sources, and nothing else as one")
    func readmeLayout() throws {
        let manifest = try Self.manifest()
        let named = try Self.layoutNames(FileSystem.readText(Paths.root + "/README.md"))
        #expect(named.count == Set(named).count, "a target named twice: \(named)")
        let targets = Set(manifest.sourceTargets.map(\.name))
        #expect(targets.subtracting(named).sorted() == [], "targets under Sources that README's layout leaves out")
        #expect(Set(named).subtracting(targets).sorted() == [], "names in README's layout that are no target")
    }

    /// `declare -A allowed=([CDBus]=DBusKit …)` in scripts/check, as a dictionary.
    static func fenceMap(_ script: String) throws -> [String: String] {
        let line = try #require(script.split(separator: "\n").first { $0.hasPrefix("declare -A allowed=(") })
        var map: [String: String] = [:]
        for pair in line.dropFirst("declare -A allowed=(".count).dropLast().split(separator: " ") {
            let parts = pair.split(separator: "=")
            try #require(parts.count == 2 && parts[0].hasPrefix("[") && parts[0].hasSuffix("]"), "\(pair)")
            #expect(map.updateValue(String(parts[1]), forKey: String(parts[0].dropFirst().dropLast())) == nil)
        }
        try #require(line.hasSuffix(")"))
        return map
    }

    /// Whether a Swift file of `target` imports `module`, in any of the forms scripts/check greps for.
    static func imports(_ module: String, in target: String) throws -> Bool {
        for file in Self.swiftFiles(Paths.root + "/Sources/" + target) {
            for line in try FileSystem.readText(file).split(separator: "\n") {
                var rest = Substring(line)
                for prefix in ["internal ", "public ", "private ", "package ", "@_implementationOnly "]
                where rest.hasPrefix(prefix) {
                    rest = rest.dropFirst(prefix.count)
                }
                if rest == "import \(module)" || rest.hasPrefix("import \(module) ") { return true }
            }
        }
        return false
    }

    static func swiftFiles(_ directory: String) -> [String] {
        FileSystem.list(directory).flatMap { name -> [String] in
            let path = directory + "/" + name
            // A link is another target's file, compiled as it is (linkctl's front): its own target answers for it.
            if FileSystem.status(path)?.kind == .symlink { return [] }
            if FileSystem.isDirectory(path) { return swiftFiles(path) }
            return name.hasSuffix(".swift") ? [path] : []
        }
    }

    /// The target names in README's layout block: on each `Sources/…` line and the indented lines
    /// that continue it, the words before the description (which is set off by two spaces).
    static func layoutNames(_ readme: String) throws -> [String] {
        let heading = try #require(readme.firstRange(of: "\n## Layout\n"))
        let open = try #require(readme[heading.upperBound...].firstRange(of: "```\n"))
        let close = try #require(readme[open.upperBound...].firstRange(of: "```"))
        var names: [String] = []
        var inSources = false
        for line in readme[open.upperBound..<close.lowerBound].split(separator: "\n") {
            if line.hasPrefix("Sources/") {
                inSources = true
            } else if !(inSources && line.hasPrefix(" ")) {
                inSources = false
                continue
            }
            let words = line.drop { $0 == " " }
            let columns = words.firstRange(of: "  ").map { words[..<$0.lowerBound] } ?? words
            for word in columns.split(separator: " ") {
                names.append(String(word.hasPrefix("Sources/") ? word.dropFirst("Sources/".count) : word))
            }
        }
        return names
    }
}
