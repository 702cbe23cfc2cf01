import React from 'react';
import { render, fireEvent, waitFor, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import { act } from 'react';
import App from './searchFlights';

const SEARCH_URL = '/api/flights?from=SFO&to=JFK&date=2025-03-14';

const fillAndSearch = async () => {
  await act(async () => {
    fireEvent.change(screen.getByPlaceholderText('From'), { target: { value: 'SFO' } });
  });
  await act(async () => {
    fireEvent.change(screen.getByPlaceholderText('To'), { target: { value: 'JFK' } });
  });
  await act(async () => {
    fireEvent.change(screen.getByTestId('departure-date'), { target: { value: '2025-03-14' } });
  });
  await act(async () => { fireEvent.click(screen.getByText(/search flights/i)); });
};

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test('finds flights for the route and date', async () => {
  fetchMock.get(SEARCH_URL, [
    { id: 'f1', airline: 'Skyways', price: 320 },
    { id: 'f2', airline: 'Blue Jet', price: 289 },
  ]);

  await act(async () => { render(<App />); });
  await fillAndSearch();

  expect(fetchMock.called(SEARCH_URL)).toBe(true);
  expect(screen.getByText('Skyways - $320')).toBeInTheDocument();
  expect(screen.getByText('Blue Jet - $289')).toBeInTheDocument();
}, 10000);

test('shows an error when the flight search fails', async () => {
  fetchMock.get(SEARCH_URL, 500);

  await act(async () => { render(<App />); });
  await fillAndSearch();

  expect(fetchMock.called(SEARCH_URL)).toBe(true);
  expect(screen.getByText(/no flights could be loaded/i)).toBeInTheDocument();
}, 10000);
