"""What the table says, in each language it speaks."""
