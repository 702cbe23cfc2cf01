import React from 'react';
import { render, fireEvent, waitFor, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import { act } from 'react';
import App from './searchJobs';

const SEARCH_URL = '/api/jobs?title=designer&location=Berlin';

const search = async () => {
  await act(async () => {
    fireEvent.change(screen.getByPlaceholderText(/job title/i), { target: { value: 'designer' } });
  });
  await act(async () => {
    fireEvent.change(screen.getByPlaceholderText(/location/i), { target: { value: 'Berlin' } });
  });
  await act(async () => { fireEvent.click(screen.getByText(/find jobs/i)); });
};

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test('searches jobs by title and location', async () => {
  fetchMock.get(SEARCH_URL, [
    { id: 1, title: 'Product Designer', company: 'Acme' },
    { id: 2, title: 'UX Designer', company: 'Northwind' },
  ]);

  await act(async () => { render(<App />); });
  await search();

  expect(fetchMock.called(SEARCH_URL)).toBe(true);
  expect(screen.getByText('Product Designer at Acme')).toBeInTheDocument();
  expect(screen.getByText('UX Designer at Northwind')).toBeInTheDocument();
}, 10000);

test('shows an error when the job search fails', async () => {
  fetchMock.get(SEARCH_URL, 500);

  await act(async () => { render(<App />); });
  await search();

  expect(fetchMock.called(SEARCH_URL)).toBe(true);
  expect(screen.getByText(/job search failed/i)).toBeInTheDocument();
}, 10000);
