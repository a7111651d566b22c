"""What knowledge tells the apps that cite its materials."""

from django.dispatch import Signal

# Sent inside the transaction that makes a material READY (``material``): a file deleted and uploaded again
# comes back under its refId (``RemovedMaterial``), and the plans and conversations that cited it rejoin it.
material_ready = Signal()
