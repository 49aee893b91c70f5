"""org.freedesktop.Notifications as the Desktop Notifications Specification 1.2
gives it, for the fixtures that serve it (instant_person.py,
shell_notifications.py, focus_app.py --notifications): one copy of the
interface, so each server declares the same methods and signals."""

NOTIFICATIONS_XML = """<interface name="org.freedesktop.Notifications">
  <method name="GetCapabilities"><arg type="as" direction="out"/></method>
  <method name="Notify">
    <arg type="s" direction="in"/><arg type="u" direction="in"/><arg type="s" direction="in"/>
    <arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="as" direction="in"/>
    <arg type="a{sv}" direction="in"/><arg type="i" direction="in"/><arg type="u" direction="out"/>
  </method>
  <method name="CloseNotification"><arg type="u" direction="in"/></method>
  <method name="GetServerInformation">
    <arg type="s" direction="out"/><arg type="s" direction="out"/><arg type="s" direction="out"/>
    <arg type="s" direction="out"/>
  </method>
  <signal name="NotificationClosed"><arg type="u"/><arg type="u"/></signal>
  <signal name="ActionInvoked"><arg type="u"/><arg type="s"/></signal>
  <signal name="ActivationToken"><arg type="u"/><arg type="s"/></signal>
</interface>"""


def node(*more):
    """The introspection data of a node with the Notifications interface and `more` interfaces' XML."""
    return "<node>" + NOTIFICATIONS_XML + "".join(more) + "</node>"
