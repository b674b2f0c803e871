#!/usr/bin/env python3
"""One EFI variable in an OVMF variable store file, from the host: what an OS's efivarfs
write would leave in the firmware's NVRAM before a boot, and what is left of it after.

  ovmf_vars.py get VARS.fd NAME GUID        the live variable as an efivarfs file's bytes
                                            (attributes, then data) on stdout; exit 1 if none
  ovmf_vars.py set VARS.fd NAME GUID FILE   appends NAME from an efivarfs file's bytes

The layout is edk2's (MdeModulePkg/Include/Guid/VariableFormat.h): a firmware volume
('_FVH' at 40, its header length at 48), then a VARIABLE_STORE_HEADER (the authenticated
store's GUID, its size), then records of an AUTHENTICATED_VARIABLE_HEADER (StartId 0x55AA,
State, Attributes, MonotonicCount, TimeStamp, PubKeyIndex, NameSize, DataSize, VendorGuid),
the UTF-16 name and the data, each record 4-byte aligned; free space is 0xFF. A deleted
variable keeps its record with State's VAR_DELETED bit cleared.
"""
import struct
import sys
import uuid

AUTH_STORE = uuid.UUID("aaf32c78-947b-439a-a180-2e144ec37792")
HEADER = struct.Struct("<HBBIQ16sIII16s")
START_ID = 0x55AA
VAR_ADDED = 0x3F
LIVE = (VAR_ADDED, VAR_ADDED & 0xFE)  # added, or added and in deletion's transition


def store_bounds(buf):
    if buf[40:44] != b"_FVH":
        sys.exit("ovmf_vars: not a firmware volume")
    at = struct.unpack_from("<H", buf, 48)[0]
    if uuid.UUID(bytes_le=bytes(buf[at:at + 16])) != AUTH_STORE:
        sys.exit("ovmf_vars: not an authenticated variable store")
    return at + 28, at + struct.unpack_from("<I", buf, at + 16)[0]


def records(buf):
    """Every record as (name, guid, attributes, data, live), and where free space starts."""
    at, end = store_bounds(buf)
    found = []
    while at + HEADER.size <= end:
        start, state, _, attrs, _, _, _, name_size, data_size, guid = HEADER.unpack_from(buf, at)
        if start != START_ID:
            break
        name_at = at + HEADER.size
        name = bytes(buf[name_at:name_at + name_size]).decode("utf-16-le").rstrip("\0")
        data = bytes(buf[name_at + name_size:name_at + name_size + data_size])
        found.append((name, uuid.UUID(bytes_le=guid), attrs, data, state in LIVE))
        at = (name_at + name_size + data_size + 3) & ~3
    return found, at


def main(argv):
    if len(argv) < 4 or argv[0] not in ("get", "set"):
        sys.exit(__doc__)
    cmd, path, name, guid = argv[0], argv[1], argv[2], uuid.UUID(argv[3])
    with open(path, "rb") as f:
        buf = bytearray(f.read())
    found, free = records(buf)
    live = [r for r in found if r[0] == name and r[1] == guid and r[4]]
    if cmd == "get":
        if not live:
            return 1
        sys.stdout.buffer.write(struct.pack("<I", live[-1][2]) + live[-1][3])
        return 0
    if live:
        sys.exit(f"ovmf_vars: {name} is already set in {path}")
    with open(argv[4], "rb") as f:
        raw = f.read()
    attrs, data = struct.unpack_from("<I", raw)[0], raw[4:]
    encoded = (name + "\0").encode("utf-16-le")
    record = HEADER.pack(START_ID, VAR_ADDED, 0, attrs, 0, bytes(16), 0, len(encoded), len(data),
                         guid.bytes_le) + encoded + data
    _, end = store_bounds(buf)
    if free + len(record) > end or any(b != 0xFF for b in buf[free:free + len(record)]):
        sys.exit(f"ovmf_vars: no free space in {path}")
    buf[free:free + len(record)] = record
    with open(path, "wb") as f:
        f.write(buf)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
