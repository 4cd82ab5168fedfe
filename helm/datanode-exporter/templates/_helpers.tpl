{{- define "dne.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "dne.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "dne.labels" -}}
app.kubernetes.io/name: {{ include "dne.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "dne.selectorLabels" -}}
app.kubernetes.io/name: {{ include "dne.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- /* "https" when the pod serves TLS: a web config from a Secret with webConfig.tls (the default). */ -}}
{{- define "dne.scheme" -}}
{{- if and .Values.webConfig.existingSecret .Values.webConfig.tls -}}https{{- else -}}http{{- end -}}
{{- end -}}

{{- /* A probe from values, with httpGet.scheme set to what the pod serves unless the values set it.
       A copy is changed, so .Values stays as given. Call with (dict "probe" P "root" $). */ -}}
{{- define "dne.probe" -}}
{{- $probe := deepCopy .probe -}}
{{- if and $probe.httpGet (not (hasKey $probe.httpGet "scheme")) -}}
{{- $_ := set $probe.httpGet "scheme" (include "dne.scheme" .root | upper) -}}
{{- end -}}
{{- toYaml $probe -}}
{{- end -}}

{{- define "dne.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "dne.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- /* "Secret" when `config` is rendered into a Secret: asked for, or some target has inline headers
       (their values must not land in a ConfigMap); else "ConfigMap". */ -}}
{{- define "dne.configKind" -}}
{{- $secret := .Values.configSecret -}}
{{- range (.Values.config | default dict).targets -}}
{{- if .headers -}}{{- $secret = true -}}{{- end -}}
{{- end -}}
{{- if $secret -}}Secret{{- else -}}ConfigMap{{- end -}}
{{- end -}}

{{- /* The scrape settings a ServiceMonitor endpoint and a PodMonitor podMetricsEndpoint share. Call
       with (dict "m" .Values.serviceMonitor "root" $). */ -}}
{{- define "dne.scrapeEndpoint" -}}
port: http
path: {{ .root.Values.telemetryPath }}
interval: {{ .m.interval }}
scrapeTimeout: {{ .m.scrapeTimeout }}
scheme: {{ .m.scheme | default (include "dne.scheme" .root) }}
{{- with .m.tlsConfig }}
tlsConfig: {{ toYaml . | nindent 2 }}
{{- end }}
{{- with .m.basicAuth }}
basicAuth: {{ toYaml . | nindent 2 }}
{{- end }}
# job="datanode-exporter" whatever the release or nameOverride: DatanodeExporterDown selects that job.
relabelings:
  - targetLabel: job
    replacement: {{ .root.Chart.Name }}
  {{- with .m.relabelings }}{{ toYaml . | nindent 2 }}{{ end }}
{{- with .m.metricRelabelings }}
metricRelabelings: {{ toYaml . | nindent 2 }}
{{- end }}
{{- end -}}
