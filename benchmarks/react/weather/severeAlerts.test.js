import React from 'react';
import { render, fireEvent, waitFor, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import { act } from 'react';
import App from './severeAlerts';

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test('lists active severe weather alerts', async () => {
  fetchMock.get('/api/alerts', [
    { id: 'al-1', headline: 'Flood warning for the river valley', severity: 'severe' },
    { id: 'al-2', headline: 'High wind advisory', severity: 'moderate' },
  ]);

  await act(async () => { render(<App />); });

  expect(fetchMock.called('/api/alerts')).toBe(true);
  await waitFor(() => {
    expect(screen.getByText('Flood warning for the river valley')).toBeInTheDocument();
  });
  expect(screen.getByText('High wind advisory')).toBeInTheDocument();
}, 10000);

test('shows that alerts are unavailable when the request fails', async () => {
  fetchMock.get('/api/alerts', { throws: new TypeError('Network request failed') });

  await act(async () => { render(<App />); });

  expect(fetchMock.called('/api/alerts')).toBe(true);
  await waitFor(() => {
    expect(screen.getByText(/alerts unavailable/i)).toBeInTheDocument();
  });
}, 10000);
