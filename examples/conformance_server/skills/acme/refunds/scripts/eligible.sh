#!/bin/sh
# Prints whether an order delivered $1 days ago is inside the refund window.
if [ "$1" -le 30 ]; then echo eligible; else echo "too late"; fi
