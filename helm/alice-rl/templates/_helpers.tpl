{{/* The service table: values key → name. */}}
{{- define "alice-rl.services" -}}
taskDispatcher: task-dispatcher
sandboxRunner: sandbox-runner
verifier: verifier
rubricPrm: rubric-prm
inference: inference
trainer: trainer
{{- end -}}

{{- define "alice-rl.labels" -}}
app.kubernetes.io/part-of: alice-rl
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/instance: {{ .Release.Name }}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}
{{- end -}}

{{- define "alice-rl.image" -}}
{{ .root.Values.image.registry }}/alice-rl-{{ .name }}:{{ default .root.Chart.AppVersion .root.Values.image.tag }}
{{- end -}}
