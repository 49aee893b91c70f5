import SystemKit

/// Renders introspection XML (the D-Bus spec's "Introspection Data Format").
public enum IntrospectionXML {
    public static let doctype = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        """

    public static func xml(interfaces: [InterfaceDescription], children: [String]) -> String {
        var out = doctype + "\n<node>\n"
        for i in interfaces { out += render(i) }
        for c in children { out += "  <node name=\"\(c)\"/>\n" }
        return out + "</node>\n"
    }

    static func render(_ i: InterfaceDescription) -> String {
        var out = "  <interface name=\"\(i.name)\">\n"
        for m in i.methods {
            if m.input.isEmpty && m.output.isEmpty {
                out += "    <method name=\"\(m.name)\"/>\n"
                continue
            }
            out += "    <method name=\"\(m.name)\">\n"
            for a in m.input {
                out += "      <arg name=\"\(a.name)\" type=\"\(Markup.escape(a.type))\" direction=\"in\"/>\n"
            }
            for a in m.output {
                out += "      <arg name=\"\(a.name)\" type=\"\(Markup.escape(a.type))\" direction=\"out\"/>\n"
            }
            out += "    </method>\n"
        }
        for s in i.signals {
            out += "    <signal name=\"\(s.name)\">\n"
            for a in s.arguments { out += "      <arg name=\"\(a.name)\" type=\"\(Markup.escape(a.type))\"/>\n" }
            out += "    </signal>\n"
        }
        for p in i.properties {
            out += "    <property name=\"\(p.name)\" type=\"\(Markup.escape(p.type))\" access=\"read\">\n"
            out +=
                "      <annotation name=\"org.freedesktop.DBus.Property.EmitsChangedSignal\" value=\"\(p.changes.rawValue)\"/>\n"
            out += "    </property>\n"
        }
        return out + "  </interface>\n"
    }
}
