"""The GitHub Action above the pipeline: inputs, routing, downloads, one routed run, outputs and summary."""
