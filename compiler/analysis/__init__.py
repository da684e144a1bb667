"""What the compiler derives from the IR: simplified forms, undefined cases, equivalences."""
