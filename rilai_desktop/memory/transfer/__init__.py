"""Export and import of everything memory holds, in a versioned, documented format.

``schema.py`` is the format (version 1; docs/memory-export.md), ``writer.py`` exports,
``readable.py`` writes the prose ``memory.md``, ``reader.py`` reads and validates a
folder, ``importer.py`` imports it in one transaction. ``MemoryManager.export_all`` and
``import_all`` are the entry points.
"""

from rilai_desktop.memory.transfer.importer import ImportReport, import_memory
from rilai_desktop.memory.transfer.reader import read_export
from rilai_desktop.memory.transfer.schema import FORMAT, JSON_NAME, VERSION, MemoryExport
from rilai_desktop.memory.transfer.writer import ExportReport, export_memory

__all__ = [
    "FORMAT",
    "JSON_NAME",
    "VERSION",
    "ExportReport",
    "ImportReport",
    "MemoryExport",
    "export_memory",
    "import_memory",
    "read_export",
]
