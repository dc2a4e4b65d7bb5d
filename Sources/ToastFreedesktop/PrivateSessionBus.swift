/// The configuration of a private session bus (`dbus-daemon --config-file`)
/// for the tests and benchmarks that must never touch the host's bus. Its
/// service directory is `directory/services`, which they leave empty, so no
/// other notification server can be activated on it.
///
/// The policy is a session bus's: anyone may own a name, send and receive
/// (without `<allow eavesdrop="true"/>` the bus refuses to deliver replies).
public enum PrivateSessionBus {
    public static func configuration(directory: String) -> String {
        """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig><type>session</type><listen>unix:path=\(directory)/bus</listen>
        <servicedir>\(directory)/services</servicedir><auth>EXTERNAL</auth>
        <policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
        </busconfig>
        """
    }
}
