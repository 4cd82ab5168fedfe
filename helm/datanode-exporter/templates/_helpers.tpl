{{- define "dne.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "dne.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
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
