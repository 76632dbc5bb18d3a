# src/report.mk: the report model, renderers, reader and the report tool.
