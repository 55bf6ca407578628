#!/bin/sh
# Drafts a refund note: note.sh ORDER AMOUNT
printf 'Refund of %s for order %s, to the card that paid.\n' "$2" "$1"
