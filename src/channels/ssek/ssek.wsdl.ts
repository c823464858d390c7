import { CATALOGUE_NAMESPACE } from '../../messages/catalogue-namespace.ts';
import { escapeXml } from '../../messages/xml-writer.ts';
import { SSEK_NAMESPACE } from './ssek-envelope.ts';

/**
 * The WSDL of the SSEK endpoint, published at GET /ssek?wsdl and generated from the
 * catalogue, so a new document type appears as an operation without an edit here.
 * SOAP 1.1, document/literal: one operation per request type (its root element is
 * the input, its response the output) plus GetResponse for the pull flow, all on the
 * one endpoint, which dispatches on the body's root element. The documents' own
 * schemas are the XSDs under schemas/; the WSDL declares their root elements as open
 * content so a SOAP stack sends and receives them unchanged.
 */
export interface WsdlOperation {
  /** Request root element, e.g. ChangeFee. */
  readonly name: string;
  /** Response root element, e.g. ChangeFeeResponse. */
  readonly responseName: string;
}

export function buildSsekWsdl(endpointUrl: string, operations: readonly WsdlOperation[]): string {
  const all = [...operations, { name: 'GetResponse', responseName: 'Receipt' }];
  const elements = new Set(all.flatMap((op) => [op.name, op.responseName]).concat('MessageRejected'));
  elements.delete('GetResponse');
  elements.delete('Receipt');
  return `<?xml version="1.0" encoding="UTF-8"?>
<wsdl:definitions name="DepotGatewaySsek" targetNamespace="${CATALOGUE_NAMESPACE}"
    xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/"
    xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:tns="${CATALOGUE_NAMESPACE}">
  <wsdl:documentation>depot-gateway SSEK endpoint (SOAP 1.1, document/literal). Every request carries the SSEK header
    (ssek:SSEK in ${SSEK_NAMESPACE}: SenderId, ReceiverId, TxId, soap:mustUnderstand="1") and may carry
    tns:Flow (sync, pull or push). An operation answers with its response document, or with tns:Receipt while the
    response is not ready (fetch it with GetResponse), or with MessageRejected when the document could not be read.
    The documents follow the XSDs of depot-gateway (docs/messages.md).</wsdl:documentation>
  <wsdl:types>
    <xsd:schema targetNamespace="${CATALOGUE_NAMESPACE}" elementFormDefault="qualified">
      <xsd:complexType name="Document">
        <xsd:sequence><xsd:any namespace="##any" processContents="lax" minOccurs="0" maxOccurs="unbounded"/></xsd:sequence>
        <xsd:anyAttribute processContents="lax"/>
      </xsd:complexType>
${[...elements].map((name) => `      <xsd:element name="${escapeXml(name)}" type="tns:Document"/>`).join('\n')}
      <xsd:element name="GetResponse">
        <xsd:complexType><xsd:sequence><xsd:element name="TxId" type="xsd:string"/></xsd:sequence></xsd:complexType>
      </xsd:element>
      <xsd:element name="Receipt">
        <xsd:complexType>
          <xsd:sequence>
            <xsd:element name="MessageId" type="xsd:string"/>
            <xsd:element name="TxId" type="xsd:string"/>
            <xsd:element name="Status" type="xsd:string"/>
            <xsd:element name="Flow" type="xsd:string"/>
          </xsd:sequence>
        </xsd:complexType>
      </xsd:element>
      <xsd:element name="Flow" type="xsd:string"/>
    </xsd:schema>
  </wsdl:types>
${all.map((op) => `  <wsdl:message name="${op.name}Request"><wsdl:part name="document" element="tns:${op.name}"/></wsdl:message>
  <wsdl:message name="${op.name}Answer"><wsdl:part name="document" element="tns:${op.responseName}"/></wsdl:message>`).join('\n')}
  <wsdl:portType name="SsekPortType">
${all.map((op) => `    <wsdl:operation name="${op.name}"><wsdl:input message="tns:${op.name}Request"/><wsdl:output message="tns:${op.name}Answer"/></wsdl:operation>`).join('\n')}
  </wsdl:portType>
  <wsdl:binding name="SsekBinding" type="tns:SsekPortType">
    <soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
${all.map((op) => `    <wsdl:operation name="${op.name}">
      <soap:operation soapAction="${CATALOGUE_NAMESPACE}/${op.name}" style="document"/>
      <wsdl:input><soap:body use="literal"/></wsdl:input>
      <wsdl:output><soap:body use="literal"/></wsdl:output>
    </wsdl:operation>`).join('\n')}
  </wsdl:binding>
  <wsdl:service name="DepotGatewaySsek">
    <wsdl:port name="SsekPort" binding="tns:SsekBinding"><soap:address location="${escapeXml(endpointUrl)}"/></wsdl:port>
  </wsdl:service>
</wsdl:definitions>
`;
}
