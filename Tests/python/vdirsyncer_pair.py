"""vdirsyncer (Debian's) between a local directory and one CalDAV calendar, for the CalDAV
client test and `hearth-bench caldav`."""
import os
import subprocess


class Pair:
    """A vdirsyncer config in `directory`: its `local` folder paired with the calendar at
    `url` (collections = null: that calendar alone); conflicts go to `wins` ("a" local, "b"
    the server)."""

    def __init__(self, directory, url, user, password, wins):
        self.directory = directory
        self.local = os.path.join(directory, "local")
        os.makedirs(self.local)
        self.config = os.path.join(directory, "config")
        with open(self.config, "w") as file:
            file.write(f"""[general]
status_path = "{directory}/status/"

[pair hearth]
a = "local"
b = "remote"
collections = null
conflict_resolution = "{wins} wins"

[storage local]
type = "filesystem"
path = "{self.local}/"
fileext = ".ics"

[storage remote]
type = "caldav"
url = "{url}"
username = "{user}"
password = "{password}"
""")

    def run(self, *arguments):
        """`vdirsyncer ARGUMENTS…` on this config; its finished process (it may fail)."""
        return subprocess.run(["/usr/bin/vdirsyncer", "-c", self.config, *arguments],
                              capture_output=True, text=True, input="y\n", timeout=1800)
